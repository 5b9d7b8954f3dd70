// Types of the Node entry: everything of ./index.d.ts, plus FileSource as a
// class (Node exports it; browsers have it only as a type).
import type { FileSource as FileSourceInstance } from './index.js';
import type { Readable } from 'node:stream';

export * from './index.js';
export { default } from './index.js';

/** A file on disk as an input, read in ranges when needed (also `et.openFile(path)`). */
export type FileSource = FileSourceInstance;
export declare const FileSource: {
  new (path: string): FileSourceInstance;
  readonly prototype: FileSourceInstance;
};

declare module './index.js' {
  /** `artifact.toNodeStream()` in Node: a stream.Readable. */
  interface NodeReadable extends Readable {}
}
