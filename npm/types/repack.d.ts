// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// repack(), extract() and the model card values.

import type { OutputOptions, Source } from '../index.js';
import type { FlatTensorSerializer, PteConfig, SerializedArtifacts } from './store.js';

// --- repack --------------------------------------------------------------------

export interface ExternalizeOptions {
  /** Tag of the .ptd the constants move to; default 'model'. */
  tag?: string;
  /** Globs ('*', '?') on the tensor's key; empty: all constants. */
  patterns?: string[];
  /** Tensors smaller than this stay in the .pte; default 0. */
  minBytes?: number;
  /** Named-data alignment of moved tensors; default 16. */
  alignment?: number;
}

/**
 * A model's data files, one shape everywhere (validate, repack's `data` and
 * `merge`, diff's `dataA`/`dataB`, exportWeights): an array of files, each
 * named by its own path, URL or File name (`[ 'model.ptd' ]`, `[ file ]`),
 * or a record that names them (`{ 'model.ptd': bytes }`: bytes have no
 * name of their own). Names met twice in an array get `#2`, `#3`...
 */
export type DataFiles<S = Source> = Array<S | string> | Record<string, S | string>;

export interface RepackOptions extends PteConfig, OutputOptions {
  /**
   * The .ptd files the .pte uses ({@link DataFiles}): `[ 'model.ptd' ]` or `{ 'model.ptd': file }` (paths in Node);
   * in an array each file needs a name of its own (a path, URL or File name), else INVALID_ARGUMENT.
   * Their named data is carried into the outputs, each under its tag = the name
   * without a trailing `.ptd` (written back as `<tag>.ptd`), so external tensors
   * that stay external keep resolving. EXTERNAL tensors whose keys none of them
   * holds make repack throw MISSING_EXTERNAL_DATA (`error.keys` lists them);
   * named-data keys a delegate's backend looks up that no output would hold,
   * MISSING_DELEGATE_DATA (naming key, delegate and method; `error.keys`).
   */
  data?: DataFiles;
  /** Repack even when EXTERNAL tensors' or delegates' data is not given (the output keeps referring to it); default false. */
  allowMissingData?: boolean;
  /** Move constant tensors into a .ptd: true for the defaults, or options. */
  externalize?: boolean | ExternalizeOptions | null;
  /** .ptd files whose named data joins `mergeTag` (an array, or an object of name -> file); paths in Node. */
  merge?: DataFiles;
  /** Default 'model'. */
  mergeTag?: string;
  /** Segment alignment of written .ptd files; default 128. */
  dataSegmentAlignment?: number;
  /** Alternatively, a FlatTensorSerializer whose segmentAlignment is used. */
  dataSerializer?: FlatTensorSerializer | null;
}

export interface ExtractOptions extends OutputOptions {
  /**
   * The delegate: counted over the methods in order (method 0's delegates
   * first), or within `method` when given. Default 0.
   */
  delegate?: number | bigint;
  /** Count `delegate` within this method. */
  method?: string;
}

/** extract()'s result: the delegate's processed blob, byte for byte, and where it is. */
export interface ExtractResult<T = Uint8Array> {
  bytes: T;
  method: string;
  /** The delegate's index within `method`. */
  index: number;
  /** The backend id. */
  id: string | null;
  location: 'inline' | 'segment';
  /** The blob's file offset (null for an empty inline blob), as inspect()'s delegates say. */
  offset: number | bigint | null;
  size: number | bigint;
}

/**
 * A model-card value (inspect()'s `metadata`): Int (a bigint beyond 2^53),
 * Double (bit exact), Bool, String, None (null), or a list of them.
 */
export type MetadataValue = number | bigint | boolean | string | null | MetadataValue[];

export interface RepackResult<T = Uint8Array> extends SerializedArtifacts<T> {
  /** Externalized tensors, in key order of first use. */
  moved: { key: string; bytes: number; paths: string[] }[];
  mergedEntries: number;
  /** Named-data entries carried from `data`. */
  carriedEntries: number;
  /** EXTERNAL keys no data file held (only with allowMissingData). */
  missingKeys: string[];
  /**
   * Where the delegates' blobs are in the output, and how many moved: none
   * unless `extractDelegateSegments` was given.
   */
  delegates: RepackDelegates;
  /** The .pte's segment alignment written with: the one given, or the input's. */
  segmentAlignment: number;
  /** True when `segmentAlignment` is the input's (not given, and the input had segment data). */
  segmentAlignmentKept: boolean;
}

export interface RepackDelegates {
  inSegments: number;
  inline: number;
  /** Inline in the input, in a segment now (extractDelegateSegments: true). */
  movedToSegments: number;
  /** In a segment in the input, inline now (extractDelegateSegments: false). */
  movedInline: number;
}
