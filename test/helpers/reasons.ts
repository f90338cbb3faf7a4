// Expectations on an intake reason's English text (the API's `reason`), whatever its code.
import { expect } from 'vitest';

/** a reason whose text is exactly this */
export const said = (text: string) => expect.objectContaining({ text });
/** a reason whose text matches */
export const saying = (pattern: RegExp | string) =>
  expect.objectContaining({ text: typeof pattern === 'string' ? expect.stringContaining(pattern) : expect.stringMatching(pattern) });
