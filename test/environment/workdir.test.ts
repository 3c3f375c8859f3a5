/** Which tasks are container-native, and where their files live in the container. */
import { describe, expect, it } from 'vitest';
import { workdirOf } from '../../src/domain/environment/index.js';
import type { TaskEnvironment } from '../../src/core/types/index.js';

const env = (workdir?: string): TaskEnvironment => ({ image: 'x:1', buildArgs: {}, pull: 'never', ...(workdir !== undefined ? { workdir } : {}) });

describe('workdirOf', () => {
  it("takes the path as set, or the image's WORKDIR for image", () => {
    expect(workdirOf(env('/srv/task'), { imageWorkdir: '/app' })).toBe('/srv/task');
    expect(workdirOf(env('image'), { imageWorkdir: '/app/' })).toBe('/app');
  });

  it('is none for a task without workdir, and for image when the image sets no WORKDIR or /', () => {
    expect(workdirOf(env(), { imageWorkdir: '/app' })).toBeUndefined();
    expect(workdirOf(undefined, { imageWorkdir: '/app' })).toBeUndefined();
    expect(workdirOf(env('image'), { imageWorkdir: '' })).toBeUndefined();
    expect(workdirOf(env('image'), { imageWorkdir: '/' })).toBeUndefined();
  });
});
