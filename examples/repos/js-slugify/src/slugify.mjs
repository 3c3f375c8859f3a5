/** Turns a title into a URL slug: lowercase words joined by single dashes. */
export function slugify(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');
}
