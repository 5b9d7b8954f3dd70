// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// diff() and the weights operations (ptdFromWeights, pteWithWeights, exportWeights).

import type { AsyncSource, Progress } from '../index.js';
import type { DataFiles } from './repack.js';
import type { TensorLayout } from './store.js';

// --- diff, weights ---------------------------------------------------------------

/** A field that differs between A and B. */
export interface FieldChange { field: string; a: unknown; b: unknown }

/** Changes of a set of named records (tensors, named data). */
export interface RecordChanges<R> {
  added: Array<R & { name: string }>;
  removed: Array<R & { name: string }>;
  /** `fields` names what differs; `a` and `b` are the two records. */
  changed: Array<{ name: string; fields: string[]; a: R; b: R }>;
}

/** A tensor of a program, by fully-qualified name or else by value path. */
export interface DiffTensor {
  kind: 'constant' | 'external' | 'mutable';
  dtype: string;
  shape: number[];
  size: number | null;
  /** SHA-256 of its bytes; null when unknown (external data not given). */
  sha256: string | null;
}

export interface DiffBlob { sha256: string; size: number; tensorLayout: TensorLayout | null }

export interface DiffOptions {
  /** The .ptd files of A / B (paths in Node, or sources). */
  dataA?: DataFiles<AsyncSource>;
  dataB?: DataFiles<AsyncSource>;
  /** An abort rejects the call at once with EtpackError ABORTED (`cause`: the signal's reason). */
  signal?: AbortSignal | null;
}

export interface DiffResult {
  kind: 'pte' | 'ptd';
  /** Every program field and every byte of data match, whatever the layout. */
  equivalent: boolean;
  /** The files (and the data files, pairwise) are byte-equal. */
  identical: boolean;
  summary: {
    methods?: { added: number; removed: number; changed: number };
    tensors?: { added: number; removed: number; changed: number };
    namedData: { added: number; removed: number; changed: number };
    externalData?: { added: number; removed: number; changed: number };
    programFields?: number;
    bytesChanged: number;
    externalDataCompared?: boolean;
    layoutChanges: number;
  };
  methods?: { added: string[]; removed: string[]; changed: Array<{ name: string; changes: FieldChange[] }> };
  tensors?: RecordChanges<DiffTensor>;
  /** The .pte's named data (pte) or the .ptd's (ptd). */
  namedData: RecordChanges<DiffBlob>;
  /** Named data of the .ptd files given as dataA / dataB. */
  externalData?: RecordChanges<DiffBlob & { file: string }>;
  /** Other program fields that differ (path in the deserialized program; at most 200). */
  programFields?: Array<{ path: string; a: unknown; b: unknown }>;
  /** Layout differences: file size, alignment, header fields, segments. */
  layout: FieldChange[];
}

export interface PtdFromWeightsOptions {
  /** The data tag the .ptd stands for (returned; a .pte does not record tags). */
  tag?: string;
  /** Prefix rules applied to checkpoint names: {from: to} or [[from, to], ...]; the first match applies. */
  rename?: Record<string, string> | Array<[string, string]>;
  /** Segment alignment of the .ptd (default 128). */
  segmentAlignment?: number;
  /**
   * The program's .ptd files ({@link DataFiles}). Every entry of theirs the
   * checkpoints do not replace (a backend's data, an external tensor the
   * checkpoints lack) is carried into the new .ptd, bytes, alignment and
   * layout untouched (`carried`). One key in two files is DUPLICATE_KEY.
   */
  data?: DataFiles;
  /** Keys of `data` to leave out (`dropped`); a key that is no carried entry is INVALID_ARGUMENT. */
  drop?: string | string[];
  output?: 'bytes' | 'blob' | 'artifact';
  /** An abort rejects the call at once with EtpackError ABORTED (`cause`: the signal's reason). */
  signal?: AbortSignal | null;
}

export interface PtdFromWeightsResult<T = Uint8Array> {
  ptd: T;
  tag: string | null;
  /** Names written, in the program's order. */
  written: string[];
  /** Checkpoint tensors the program does not use (not written). */
  unused: string[];
  /** Entries of `data` written unchanged, with the file each came from. */
  carried: Array<{ key: string; file: string }>;
  /** Keys left out (`drop`). */
  dropped: string[];
}

export interface PteWithWeightsOptions {
  rename?: Record<string, string> | Array<[string, string]>;
  segmentAlignment?: number;
  constantTensorAlignment?: number;
  delegateAlignment?: number;
  extractDelegateSegments?: boolean;
  output?: 'bytes' | 'blob' | 'artifact';
  /** An abort rejects the call at once with EtpackError ABORTED (`cause`: the signal's reason). */
  signal?: AbortSignal | null;
}

export interface PteWithWeightsResult<T = Uint8Array> {
  pte: T;
  /** Constants whose bytes now come from the checkpoints. */
  replaced: string[];
  /** Named constants the checkpoints do not name (bytes unchanged). */
  kept: string[];
  unused: string[];
}

/**
 * exportWeights() with no tensor to write (no names, none matching
 * `include`, only dtypes safetensors cannot store) throws NOTHING_TO_EXPORT,
 * its reason in `hint`, as the CLI's export-weights does.
 */
export interface ExportWeightsOptions {
  /** Only tensors whose name matches one of these globs ('*', '?'). */
  include?: string | string[];
  output?: 'bytes' | 'blob' | 'artifact';
  /** With output 'bytes': called as the file's bytes are gathered. */
  onProgress?: ((progress: Progress) => void) | null;
  /** An aborted signal is ABORTED before anything is read (as repack and extract). */
  signal?: AbortSignal | null;
}

export interface ExportWeightsResult<T = Uint8Array> {
  safetensors: T;
  tensors: string[];
  skipped: Array<{ name: string; reason: string }>;
}
