import type { DataFileError } from '../errors.js';

/** One thing wrong in one data file: `file` is relative to the roster root, `field` a JSON pointer (`/members/2`). */
export type DataProblem = DataFileError['problems'][number];
