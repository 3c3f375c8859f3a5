/** Returns a new array of `items` ordered by `item[key]`, ascending. Stable; never mutates `items`. */
export function sortBy(items, key) {
  return [...items].sort((a, b) => a[key] - b[key]);
}
