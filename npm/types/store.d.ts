/// <reference path="./dispose.d.ts" />
// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// The named-data store, its output and the data serializer (NamedDataStore, FlatTensorSerializer), and
// what serialize/deserialize take and give.

import type { Program, ProgramInput } from './program.js';
import type { Artifact, OutputOf, OutputOptions, Source } from '../index.js';

/** Tensor layout of a named data entry (`TensorLayout` upstream). */
export interface TensorLayout {
  /** ScalarType as an integer (6 = Float, ...). */
  scalarType: number;
  sizes: number[];
  dimOrder: number[];
}

/** One named data entry; `bufferIndex` points into the owner's `buffers`. */
export interface DataEntry {
  bufferIndex: number;
  alignment: number;
  tensorLayout: TensorLayout | null;
}

/**
 * `NamedDataStoreOutput` upstream. Returned buffers are views of the arrays
 * that were added (no copy); ranges of files and Blobs come back as lazy
 * Artifacts (nothing read).
 */
export interface NamedDataStoreOutput {
  buffers: (Uint8Array | Artifact)[];
  pteData: Record<string, DataEntry>;
  /** tag -> key -> entry, tags in insertion order. */
  externalData: Record<string, Record<string, DataEntry>>;
}

/** The same shape as input: any {@link Bytes} as buffers; snake_case keys are accepted too. */
export interface NamedDataStoreOutputInput {
  buffers: Source[];
  pteData?: Record<string, DataEntryInput>;
  externalData?: Record<string, Record<string, DataEntryInput>>;
  pte_data?: Record<string, DataEntryInput>;
  external_data?: Record<string, Record<string, DataEntryInput>>;
}

export interface DataEntryInput {
  bufferIndex?: number;
  buffer_index?: number;
  alignment?: number;
  tensorLayout?: TensorLayoutInput | null;
  tensor_layout?: TensorLayoutInput | null;
}

export interface TensorLayoutInput {
  scalarType?: number;
  scalar_type?: number;
  sizes?: ArrayLike<number>;
  dimOrder?: ArrayLike<number>;
  dim_order?: ArrayLike<number>;
}

/** What the emitter produced (`EmitterOutput` upstream, the parts the serializer reads). */
export interface EmitterOutput {
  /** A Program object or its JSON text. */
  program: ProgramInput | string;
  /** Each mutable buffer's storage (or `{storage}` objects), or null. */
  mutableData?: (Source | { storage: Source })[] | null;
  /** `{tag: {fqn: index into externalConstantBuffer}}`. */
  externalConstantMap?: Record<string, Record<string, number>>;
  externalConstantBuffer?: Source[];
}

/** `ExecutorchBackendConfig`'s serialization fields. */
export interface PteConfig {
  /**
   * Default true for serializeForExecutorch, false for serializePteBinary.
   * repack: not given keeps every delegate where the input has it (in a
   * segment, equal blobs sharing one, or inline); true moves every inline
   * blob into a segment, false moves every blob inline.
   */
  extractDelegateSegments?: boolean;
  /** Default 128; repack: not given keeps the input's (`RepackResult.segmentAlignment`). */
  segmentAlignment?: number;
  constantTensorAlignment?: number | null;
  delegateAlignment?: number | null;
}

export interface FlatTensorConfig {
  /** Default 128. */
  segmentAlignment?: number;
}

/** What a data serializer receives: all buffers of the store, and one tag's entries. */
export interface DataPayload {
  buffers: (Uint8Array | Artifact)[];
  namedData: Record<string, DataEntry>;
}

export interface DataPayloadInput {
  buffers: Source[];
  namedData?: Record<string, DataEntryInput>;
  named_data?: Record<string, DataEntryInput>;
}

/** Any object that turns a payload into the bytes of a data file. */
export interface DataSerializer {
  serialize(payload: DataPayload): Source;
}

/** Created through the API: `new et.FlatTensorSerializer(config)` (no top-level export). */
declare class FlatTensorSerializer implements DataSerializer {
  constructor(config?: FlatTensorConfig);
  readonly config: Required<FlatTensorConfig>;
  /** The bytes of a .ptd (FlatTensor) file, in the form `options.output` asks for. */
  serialize(payload: DataPayloadInput): Uint8Array;
  serialize<O extends OutputOptions>(payload: DataPayloadInput, options: O): OutputOf<O>;
  /** A .ptd back into buffers and entries (alignment is always 1 on the way back). */
  deserialize(data: Source): DataPayload;
}

export interface AddNamedDataOptions {
  /** Positive power of two; default 1. */
  alignment?: number;
  /** Put the entry in the .ptd with this tag instead of the .pte; default null. */
  externalTag?: string | null;
  tensorLayout?: TensorLayoutInput | null;
}

/** Created through the API: `new et.NamedDataStore()` (no top-level export). */
declare class NamedDataStore {
  constructor();
  /** Same key with different bytes throws DUPLICATE_KEY; equal bytes are stored once. */
  addNamedData(key: string, data: Source, options?: AddNamedDataOptions): void;
  mergeNamedDataStore(other: NamedDataStore | NamedDataStoreOutputInput): void;
  /** Moves PTE data into .ptd shards of at most maxDataBytes each, tagged `${tagPrefix}...`. */
  externalizePteData(maxDataBytes: number | bigint, tagPrefix: string): void;
  getNamedDataStoreOutput(): NamedDataStoreOutput;
  /** Frees the wasm-side store and releases references to the added arrays; later use throws OBJECT_DELETED. */
  delete(): void;
  /** `using store = new et.NamedDataStore()`: delete() at the end of the block. */
  [Symbol.dispose](): void;
}

export type { NamedDataStore, FlatTensorSerializer };

export interface SerializedArtifacts<T = Uint8Array> {
  pte: T;
  /** tag -> .ptd file, in tag insertion order; a tag is there only when data went to it. */
  ptd: Partial<Record<string, T>>;
}

export interface PteFile {
  program: ProgramInput | string;
  mutableData?: (Source | { storage: Source })[] | null;
  namedData?: NamedDataStore | NamedDataStoreOutputInput | null;
}

export interface DeserializedPte {
  program: Program;
  mutableData: (Uint8Array | Artifact)[] | null;
  namedData: NamedDataStoreOutput | null;
}
