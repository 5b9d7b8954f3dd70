// Types for executorch-pack: ExecuTorch's .pte/.ptd serializer, inspector and
// validator, compiled to WebAssembly. Names follow upstream's Python API
// (serialize_for_executorch -> serializeForExecutorch); the Program keeps
// upstream's snake_case JSON shape (`_program_to_json`).

/** Anything byte-like: taken as a view of the same memory, never converted by the caller. */
export type Bytes = ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/**
 * A Uint8Array over a fresh ArrayBuffer of its own (what the package returns
 * as file bytes): usable as a BlobPart (`new File([bytes], name)`). Written as
 * what `slice()` returns so that it is `Uint8Array<ArrayBuffer>` under
 * TypeScript 5.7+ and plain `Uint8Array` before.
 */
export type OwnedBytes = ReturnType<Uint8Array['slice']>;

/**
 * Any input whose bytes stay where they are: byte arrays (referenced, never
 * copied), a Blob/File opened with `await et.openBlob(blob)` (its head read,
 * the rest read lazily), a file opened with `openFile` (Node), a remote file
 * (`openUrl`), or an Artifact returned by an earlier call. A raw Blob is not
 * one: the synchronous core cannot wait for its bytes (the asynchronous
 * operations take {@link AsyncSource} and open Blobs themselves).
 */
export type Source = Bytes | FileSource | OpenedBlob | UrlSource | Artifact;

/** What the asynchronous operations (diff, ptdFromWeights, pteWithWeights) take: a {@link Source} or a Blob/File, opened for you. */
export type AsyncSource = Source | Blob;

/** An int64 field: a Number when it is a safe integer, a BigInt otherwise. */
export type Int64 = number | bigint;

/**
 * A Program in upstream's `_program_to_json` shape (snake_case fields, enums
 * as integers, each union field `f` with `f_type`, doubles `inf`/`-inf` as
 * strings), typed from our schema (src/schema/*.fbs) when the package is
 * built: see ./types/program.d.ts. Programs returned by the API
 * ({@link Program}) have every field, absent ones as null, int64 fields as a
 * Number where exact and a BigInt otherwise, byte fields as Uint8Array.
 * Programs passed in ({@link ProgramInput}) may leave fields out; they can
 * be returned ones, unchanged.
 */
import type { Program, ProgramInput } from './types/program.js';
export type {
  Program, ProgramInput, ExecutionPlan, EValue, KernelTypesMembers, Tensor, ExtraTensorInfo, AllocationDetails,
  Chain, Instruction, InstructionArgumentsMembers, KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall,
  Operator, BackendDelegate, BackendDelegateDataReference, CompileSpec, SubsegmentOffsets, FlatTensor,
} from './types/program.js';
/** `ScalarType.FLOAT === 6`: the codes by name (a value), and the type of a code. */
export { ScalarType } from './types/scalar-type.js';
/** Every table, enum and union of the schema, by its schema name (types only). */
import type * as schema from './types/program.js';
export type { schema };
export type { FindingCode, ErrorCode } from './types/codes.js';
import type { FindingCode, ErrorCode } from './types/codes.js';

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
  /** Default true for serializeForExecutorch, false for serializePteBinary and repack. */
  extractDelegateSegments?: boolean;
  /** Default 128. */
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

// --- outputs ---------------------------------------------------------------------

export interface Progress {
  bytesWritten: number;
  totalBytes: number;
}

/**
 * How a call hands back the files it writes. 'bytes' (default): one
 * contiguous Uint8Array per file, each byte copied once. 'blob': a Blob from
 * parts (input Blobs become slices of themselves: no copy). 'artifact': an
 * {@link Artifact}, materialised later (writeTo, stream, toBlob, bytes).
 */
export interface OutputOptions {
  output?: 'bytes' | 'blob' | 'artifact';
  /** With output 'bytes': progress over all files of the call. */
  onProgress?: ((progress: Progress) => void) | null;
  /** Checked before the call and after each progress report: an abort is EtpackError ABORTED (`cause`: the signal's reason). */
  signal?: AbortSignal | null;
}

export type OutputOf<O> = O extends { output: 'artifact' } ? Artifact : O extends { output: 'blob' } ? Blob : Uint8Array;

/**
 * An output file as its ordered pieces: the core's own bytes (header,
 * flatbuffer), zero padding, and ranges of the inputs (weights, by
 * reference). Usable as an input anywhere a {@link Source} is.
 */
export declare class Artifact {
  /** Exact file size (a Number; exact below 2^53). */
  readonly size: number;
  readonly pieces: ReadonlyArray<
    { bytes: Uint8Array } | { zeros: number } | { entry: unknown; offset: number; length: number }>;
  /** One contiguous array; synchronous (every input must be readable synchronously: not an unopened Blob). */
  toBytes(options?: { onProgress?: (p: Progress) => void; signal?: AbortSignal }): OwnedBytes;
  /** The same, reading inputs asynchronously (works for Blob inputs). */
  bytes(options?: { onProgress?: (p: Progress) => void; signal?: AbortSignal }): Promise<OwnedBytes>;
  /** A Blob from parts. Not available for file-backed artifacts in Node (use writeTo). */
  toBlob(options?: { type?: string }): Blob;
  /** Chunks in file order; at most `chunkSize` (default 8 MiB) of file data held at a time. */
  chunks(options?: { chunkSize?: number; signal?: AbortSignal }): AsyncGenerator<Uint8Array>;
  /** `for await (const chunk of artifact)`: the same as chunks(). */
  [Symbol.asyncIterator](): AsyncGenerator<Uint8Array>;
  /** A web ReadableStream of the file; an aborted `signal` errors the stream with EtpackError ABORTED (`cause`: the signal's reason). */
  stream(options?: { chunkSize?: number; onProgress?: (p: Progress) => void; signal?: AbortSignal }): ReadableStream<Uint8Array>;
  /**
   * Node: writes the file with bounded memory; resolves to the byte count. The bytes go to a temporary
   * created exclusively (unpredictable name) beside `path`, renamed over `path` only when complete: on an
   * error (IO_ERROR) or when `signal` aborts (ABORTED, `cause` = the signal's reason) the temporary is
   * removed and an existing file at `path` is unchanged. A `path` that is a FIFO, device or socket is
   * refused (OUTPUT_NOT_REGULAR); SIGINT/SIGTERM/SIGHUP remove a temporary not yet renamed.
   */
  writeTo(path: string, options?: { onProgress?: (p: Progress) => void; signal?: AbortSignal }): Promise<number>;
  /** Node: a stream.Readable of the file. */
  toNodeStream(options?: { chunkSize?: number }): NodeReadable;
}

/**
 * A `stream.Readable` of node:stream. Declared empty here so that browser
 * code compiles without Node's types; the Node entry's types
 * (index.node.d.ts) make it the full Readable.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface NodeReadable {}

/** Node: a file on disk as an input, read in ranges when needed (see `openFile`). */
export interface FileSource {
  readonly path: string;
  readonly size: number;
  /** Bytes read from the file so far (for measurements). */
  bytesRead: number;
  /** Closes the file; later reads throw IO_ERROR. Also `using file = et.openFile(path)`. */
  close(): void;
  [Symbol.dispose](): void;
}

/** A Blob prepared by `openBlob`. */
export interface OpenedBlob {
  readonly size: number;
  readonly blob: Blob;
  /** 'pte' / 'ptd' when the Blob is one (its head was read), else null (its SHA-256 was computed). */
  readonly kind: 'pte' | 'ptd' | null;
}

/** Options of `openUrl`. */
export interface OpenUrlOptions {
  /**
   * Request headers. A plain object is sent only to the URL's own origin
   * (dropped on a redirect elsewhere); a function is asked for each request
   * and redirect hop, e.g. to send a token only to some hosts.
   */
  headers?: Record<string, string> | ((url: string) => Record<string, string> | null | undefined);
  /** Default: globalThis.fetch. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /**
   * Idle timeout of each request (restarted whenever bytes arrive); default 30000; 0: none. Each request
   * also has an overall deadline: timeoutMs plus its bytes at `minBytesPerSecond` (TIMEOUT either way).
   */
  timeoutMs?: number;
  /** The slowest transfer a request's deadline allows for; default 64 KiB/s. */
  minBytesPerSecond?: number;
  /** Cache block: small reads are rounded to blocks, neighbours fetched together; default 64 KiB. */
  blockSize?: number;
  /** The first request's size (header + flatbuffer of most files); default 64 KiB. */
  headBytes?: number;
  /** Blocks kept for small asynchronous reads; default 64. */
  cacheBlocks?: number;
  /** Prefetch the padding validate checks (default true), within paddingBytes (default 1 MiB) and paddingRequests (default 16). */
  padding?: boolean;
  paddingBytes?: number;
  paddingRequests?: number;
  /** A server that ignores Range is read whole up to this many bytes (default 256 MiB); more: SOURCE_TOO_LARGE. */
  maxBytes?: number;
  /**
   * The largest head (header + flatbuffer, as the file's header or, without one, its size claims) fetched
   * at open; default 256 MiB; more: SOURCE_TOO_LARGE naming the size, before anything is fetched.
   */
  maxHeadBytes?: number;
  /** Hash the whole object now (exact dedup of data inputs); default false. */
  digest?: boolean;
}

/**
 * A remote file opened by `openUrl`: its head (and the padding validate
 * peeks at) is held; other bytes are fetched by range requests when an
 * output that contains them is written (writeTo, bytes, stream). Contiguous
 * outputs (`output: 'bytes'`, `toBytes()`) need bytes synchronously and fail
 * with RANGE_NOT_FETCHED: ask for `output: 'artifact'`.
 */
export interface UrlSource {
  /** The URL without query or credentials (safe to print). */
  readonly url: string;
  readonly size: number;
  readonly kind: 'pte' | 'ptd' | null;
  readonly headSize: number;
  /** false: the server ignored Range and the whole file was read once. */
  readonly rangeSupported: boolean;
  /** Body bytes received so far, over `requests` HTTP requests. */
  readonly bytesFetched: number;
  readonly requests: number;
  /** Padding bytes not fetched (validate reports them as PADDING_NOT_CHECKED). */
  readonly uncheckedPadding: number;
  /** Fetches ranges now so a synchronous call can read them (e.g. a RANGE_NOT_FETCHED error's `ranges`). */
  prefetch(ranges: Array<{ offset: number; size: number }>): Promise<void>;
  close(): void;
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

/** A block of an ETDump as the file holds it (readETDump). */
export interface ETDumpRunData {
  name?: string;
  bundled_input_index: number;
  allocators?: { name?: string }[];
  events?: ETDumpEvent[];
}
export interface ETDumpProfileEvent {
  name?: string;
  chain_index: number;
  instruction_id: number;
  delegate_debug_id_int: number;
  delegate_debug_id_str?: string;
  delegate_debug_metadata?: number[];
  start_time: number | bigint;
  end_time: number | bigint;
}
export interface ETDumpEvent {
  profile_event?: ETDumpProfileEvent;
  allocation_event?: { allocator_id: number; allocation_size: number | bigint };
  debug_event?: {
    chain_index: number | bigint;
    instruction_id: number;
    debug_entry?: Record<string, unknown>;
    delegate_debug_id_int: number;
    delegate_debug_id_str?: string;
    name?: string;
  };
}
export interface ETDump { version: number; run_data?: ETDumpRunData[] }

export interface ProfileOptions {
  /** The program's .ptd files: accepted, not needed for the join. */
  data?: DataFiles;
  /** One method for every block, or each block's method in file order (null: infer). */
  methods?: string | (string | null)[];
}
export interface ProfileEvent {
  name: string;
  /** Its place among all the block's events in the file. */
  eventIndex: number;
  chain: number;
  instruction: number;
  /** The instruction's type; null for method-level events (chain -1). */
  type: 'KernelCall' | 'DelegateCall' | 'MoveCall' | 'FreeCall' | 'JumpFalseCall' | null;
  /** name.overload of a KernelCall's operator. */
  operator?: string;
  /** A DelegateCall's backend id. */
  delegate?: string;
  /** A kernel- or delegate-internal event on its instruction's ids. */
  internal: boolean;
  /** For internal events: the index (in `events`) of the instruction's own event enclosing it. */
  parent?: number | null;
  startTime: number | bigint;
  endTime: number | bigint;
  duration: number | bigint;
  delegateDebugIdInt?: number;
  delegateDebugIdStr?: string;
  /** Hex. */
  delegateDebugMetadata?: string;
}
export interface ProfileBlock {
  name: string;
  index: number;
  method: string | null;
  methodFrom: 'named' | 'instructions' | 'only method' | 'load order' | null;
  /** The methods whose instructions fit the block's events. */
  candidates: string[];
  /** The execute run of its method (0, 1, ...); null for load blocks. */
  run: number | null;
  bundledInputIndex: number;
  events: ProfileEvent[];
}
export interface ProfileStats {
  name: string;
  methods: string[];
  count: number;
  total: number | bigint;
  min: number | bigint;
  p10: number;
  p50: number;
  p90: number;
  mean: number;
  max: number | bigint;
}
export interface Profile {
  blocks: ProfileBlock[];
  operators: ProfileStats[];
  delegates: ProfileStats[];
  warnings: string[];
}
export interface ChromeTraceEvent {
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  name: string;
  cat?: string;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}
export interface ChromeTrace { traceEvents: ChromeTraceEvent[]; displayTimeUnit: 'ns' }

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
  output?: 'bytes' | 'blob' | 'artifact';  /** An abort rejects the call at once with EtpackError ABORTED (`cause`: the signal's reason). */
  signal?: AbortSignal | null;
}

export interface PtdFromWeightsResult<T = Uint8Array> {
  ptd: T;
  tag: string | null;
  /** Names written, in the program's order. */
  written: string[];
  /** Checkpoint tensors the program does not use (not written). */
  unused: string[];
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

export interface ExportWeightsOptions {
  /** Only tensors whose name matches one of these globs ('*', '?'). */
  include?: string | string[];
  output?: 'bytes' | 'blob' | 'artifact';
}

export interface ExportWeightsResult<T = Uint8Array> {
  safetensors: T;
  tensors: string[];
  skipped: Array<{ name: string; reason: string }>;
}

// --- inspect -------------------------------------------------------------------
// Sizes and offsets are Numbers; a value read from a file that exceeds 2^53
// comes back as a BigInt instead of being rounded.

export type SegmentMapKind = 'preamble' | 'header' | 'padding' | 'flatbuffer' | 'constant' | 'mutable'
  | 'delegate' | 'namedData' | 'segment' | 'unused';

export interface SegmentMapRange {
  start: number;
  /** Exclusive. */
  end: number;
  size: number;
  kind: SegmentMapKind;
  segment: number | null;
  /** Who refers to the bytes; a segment's range has its segment's owners and ownerCount. */
  owners: string[];
  /** Every referrer; more than owners.length when owners names only the first few named-data entries. */
  ownerCount: number;
  clipped: boolean;
}

export interface SegmentSummary {
  index: number;
  offset: number;
  size: number;
  kind: string;
  /**
   * The segment's named referrers, then its first 3 named-data entries
   * ("named_data[i] key"): not a name per entry (a segment a million entries
   * share). namedData.segment tells every entry's segment.
   */
  owners: string[];
  /** Every referrer, each named-data entry included. */
  ownerCount: number;
}

export interface BytesByCategory {
  header: number;
  flatbufferMetadata: number;
  constants: number;
  mutableData: number;
  delegateBlobs: number;
  namedData: number;
  padding: number;
  unused: number;
}

export interface ValueSummary {
  index: number;
  type: string;
  dtype: string | null;
  shape: number[] | null;
}

export interface MethodSummary {
  name: string | null;
  inputs: ValueSummary[];
  outputs: ValueSummary[];
  valueCount: number;
  chainCount: number;
  instructionCount: number;
  operators: { name: string; overload: string | null; count: number }[];
  delegates: {
    index: number;
    id: string | null;
    location: 'inline' | 'segment' | 'missing' | 'invalid';
    dataIndex: number | null;
    size: number | null;
    offset: number | null;
    compileSpecs: string[];
    /** Values shown only when printable text (<= 256 bytes) or a small 1/4/8-byte integer. */
    compileSpecValues: { key: string | null; bytes: number; value: string | number | null }[];
  }[];
  nonConstBufferSizes: Int64[];
  /** Memory the method's planner asks for: bytes per memory id (non_const_buffer_sizes) and their sum. */
  memory: { plannedBuffers: Int64[]; plannedTotal: Int64; methodAllocator: MethodAllocatorBytes };
}

/** What a file needs from the runtime that loads it. */
export interface Requirements {
  /** The earliest ExecuTorch release that loads every feature used, e.g. '0.6'. */
  minRuntimeVersion: string;
  /** Each feature used, its first release, and where the file first uses it. */
  features: { feature: string; since: string; where: string | null }[];
  /** Delegate backend ids the runtime must link. */
  backends: string[];
  /** Kernels to register: 'name.overload' ('name' when the overload is empty) that some KernelCall instruction calls. */
  operators: string[];
  /** Operator table entries no instruction calls: the runtime never looks them up, so they need no kernel. */
  unusedOperators: string[];
  /** Named data the .ptd files must provide (EXTERNAL tensors). */
  externalData: { key: string; dtype: string | null; shape: number[] | null; bytes: Int64 | null; methods: string[] }[];
}

export interface LargestConstant {
  /** fully_qualified_name where the program has one, else the value's path. */
  name: string;
  bytes: Int64;
  dtype: string | null;
  shape: number[] | null;
  /** The slice it reads: 'constant_segment.offsets[i]' or 'constant_buffer[i]'. */
  where: string;
}

export interface PteSummary {
  format: 'pte';
  fileSize: number;
  identifier: string;
  rootOffset: number;
  header: null | { length: number; programSize: number; segmentBaseOffset: number; segmentDataSize: number };
  programVersion: number;
  segmentAlignment: number | null;
  /**
   * The model card: each method that runs no instruction and returns only
   * non-tensor constants (get_max_seq_len, get_bos_id, ...), by name: its
   * value (one output) or the array of its values (several).
   */
  metadata: Record<string, MetadataValue | MetadataValue[]>;
  methods: MethodSummary[];
  /** The method allocator for the whole model (see MethodAllocatorBytes). */
  methodAllocator: ModelMethodAllocator;
  constants: {
    storage: 'segment' | 'inline' | 'none';
    segment: number | null;
    count: number;
    totalBytes: number;
    /** The 10 largest constants, largest first. */
    largest: LargestConstant[];
  };
  mutableData: null | { segment: number | null; count: number; totalBytes: number };
  namedData: NamedDataColumns;
  externalTensors: { name: string; dtype: string | null; shape: number[] | null; size: number | null; mutable: boolean }[];
  requirements: Requirements;
  segments: SegmentSummary[];
  segmentMap: SegmentMapRange[];
  /** Zero padding between tensors inside the constant and mutable segments (validate checks it). */
  paddingInSegments: { start: number; end: number }[];
  bytesByCategory: BytesByCategory;
}

/**
 * inspect()'s named-data entries in columns (issue 29; before 0.2 they were
 * an array of row objects): entry i is `key[i]`, `segment[i]`, `size[i]`.
 * Every array has `count` elements. A file can hold a million entries: a
 * few arrays cost a small multiple of the file, a million objects did not.
 */
export interface NamedDataColumns {
  count: number;
  /** null: the entry has no key. */
  key: (string | null)[];
  /** The entry's segment_index, as the file holds it. */
  segment: number[];
  /** The segment's size in bytes; null when segment_index names no segment. */
  size: (number | null)[];
}

/** A .ptd entry's tensor layout, as inspect() reports it (a field the file lacks or that is longer than 16 is null). */
export interface NamedDataLayout {
  dtype: string | null;
  shape: number[] | null;
  dimOrder: number[] | null;
}

/**
 * A .ptd's named data in columns: NamedDataColumns plus each entry's tensor
 * layout, `layouts[layout[i]]` (null: the entry has none). `layouts` holds
 * each distinct layout once, in order of first use.
 */
export interface PtdNamedDataColumns extends NamedDataColumns {
  layout: (number | null)[];
  layouts: NamedDataLayout[];
}

export interface PtdSummary {
  format: 'ptd';
  fileSize: number;
  identifier: string;
  rootOffset: number;
  header: { length: number; flatbufferOffset: number; flatbufferSize: number; segmentBaseOffset: number; segmentDataSize: number };
  version: number;
  /** The fields set at their ExecuTorch 0.6 positions when the FlatTensor table uses that old layout (validate refuses it: PTD_OLD_LAYOUT), else null. */
  oldLayoutFields: string | null;
  segmentAlignment: number | null;
  namedData: PtdNamedDataColumns;
  /** Features of the .ptd; backends, operators and externalData are empty. */
  requirements: Requirements;
  segments: SegmentSummary[];
  segmentMap: SegmentMapRange[];
  bytesByCategory: BytesByCategory;
}

export interface InspectOptions {
  /** Default: 'ptd' when the file's identifier is FT.., 'bpte' for BP.., otherwise 'pte'. */
  kind?: 'pte' | 'ptd' | 'bpte';
  /**
   * The .ptd files a .pte is loaded with: the method allocator figures then
   * count what load_method adds for them (a merged data map when the .pte
   * has a named_data table). Only their identifiers are read.
   */
  dataFiles?: DataFiles;
}

// --- BundledProgram (.bpte) ------------------------------------------------------

/** A tensor of a test case: bytes of `scalar_type` (ScalarType) laid out as `sizes` in `dim_order`. */
export interface BundledTensor {
  scalar_type: number;
  sizes: number[];
  dim_order: number[];
  data: Source;
}
/** A test case value, shaped like a program's EValue; `val_type: null` is the union's empty member (None). */
export type BundledValue =
  | { val_type: 'Tensor'; val: BundledTensor }
  | { val_type: 'Int'; val: { int_val: Int64 } }
  | { val_type: 'Double'; val: { double_val: number } }
  | { val_type: 'Bool'; val: { bool_val: boolean } }
  | { val_type: null; val: null };
export interface BundledTestCase { inputs: BundledValue[]; expected_outputs: BundledValue[] }
export interface BundledMethodTestSuite { method_name: string; test_cases: BundledTestCase[] }
/** serializeBundledProgram's input (upstream's BundledProgram dataclasses as JSON). */
export interface BundledProgramInput {
  /** Every field is required, as upstream's dataclasses require them (null is refused: SCHEMA_MISMATCH). */
  version: number;
  /** The whole .pte file. */
  program: Source;
  method_test_suites: BundledMethodTestSuite[];
}
/** testCasesFromSafetensors' result: spread it with `program` into serializeBundledProgram. */
export interface BundledTestCases {
  /** Metadata "bundle.version", else 0. */
  version: number;
  method_test_suites: BundledMethodTestSuite[];
}
/** deserializeBundledProgram's result: the same shape, bytes as Uint8Array, int64 beyond 2^53 as bigint. */
export interface BundledProgram {
  version: number;
  program: Uint8Array;
  method_test_suites: Array<{
    method_name: string;
    test_cases: Array<{ inputs: DeserializedBundledValue[]; expected_outputs: DeserializedBundledValue[] }>;
  }>;
}
export type DeserializedBundledValue =
  | { val_type: 'Tensor'; val: { scalar_type: number; sizes: number[]; dim_order: number[]; data: Uint8Array } }
  | { val_type: 'Int'; val: { int_val: Int64 } }
  | { val_type: 'Double'; val: { double_val: number } }
  | { val_type: 'Bool'; val: { bool_val: boolean } }
  | { val_type: null; val: null };

/** A value as inspect() of a .bpte lists it. */
export type BundledValueSummary =
  | { type: 'Tensor'; dtype: string | null; scalarType: number; shape: number[] | null; dimOrder: number[] | null;
      dataOffset: number | null; dataSize: number | null }
  | { type: 'Int'; value: Int64 }
  | { type: 'Double'; value: number }
  | { type: 'Bool'; value: boolean }
  | { type: 'None' };
/** inspect() of a .bpte: the bundle, and its embedded program inspected as a .pte. */
export interface BpteSummary {
  format: 'bpte';
  fileSize: number;
  identifier: string;
  version: number;
  /** Where the embedded .pte lies in the file; null when the bundle has none. */
  program: { offset: number; size: number } | null;
  programSummary: PteSummary | null;
  /** Why the embedded program could not be inspected. */
  programError: { code: string; message: string } | null;
  methodTestSuites: Array<{
    methodName: string | null;
    testCases: Array<{ inputs: BundledValueSummary[] | null; expectedOutputs: BundledValueSummary[] | null }>;
  }>;
}

// --- validate ------------------------------------------------------------------

export interface ValidateOptions {
  /** Target release 'X.Y': every feature newer than it is an error (before '1.3' implies deprecatedConstantBuffer). */
  runtime?: string | null;
  /** Delegate backends the target links: every other delegate is an error. */
  backends?: string[] | null;
  /** Target builds with the deprecated constant_buffer path (Buck's default): a missing placeholder is a warning. */
  deprecatedConstantBuffer?: boolean;
  /**
   * The method allocator the target hands load_method: every method whose
   * minimum (inspect()'s methodAllocator, the .ptd files given counted) is
   * larger is a METHOD_ALLOCATOR_TOO_SMALL error naming the bytes missing.
   * arch: default '64-bit'; tempAllocator: default true (a temp allocator
   * is given too).
   */
  methodAllocator?: { bytes: number | bigint; arch?: '64-bit' | 'arm32'; tempAllocator?: boolean } | null;
}

export interface Finding {
  code: FindingCode;
  message: string;
  /** 'pte' or the .ptd's name as given. */
  file: string;
  /** A BigInt only for offsets beyond 2^53 (hostile files). */
  offset: Int64 | null;
  /** e.g. 'execution_plan[0].values[12]'. */
  path: string | null;
}

export interface ValidationReport {
  ok: boolean;
  errors: Finding[];
  warnings: Finding[];
}

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
   * holds make repack throw MISSING_EXTERNAL_DATA (`error.keys` lists them).
   */
  data?: DataFiles;
  /** Repack even when EXTERNAL tensors' data is not given (the output keeps referring to it); default false. */
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

/**
 * What load_method takes from the method allocator: the exact minimum bytes
 * of a 64-byte-aligned pool, with and without a temp allocator, replayed from
 * the file (backends' own init() requests excluded; the merged data map a
 * .pte with a named_data table costs when .ptd files are given is counted
 * when inspect() is given them as dataFiles). `runtime`: the ExecuTorch
 * runtime the figures were measured on.
 */
/**
 * `runtime`: the ExecuTorch runtime the figures are for; `dataFiles`: the
 * .ptd files the figures assume load_method is given (inspect's dataFiles)
 * and `mergedDataMap` whether that costs a merged data map per method;
 * `allMethods`: one pool loading every method in file order (each method
 * but the last rounded up to 8 bytes).
 */
export interface ModelMethodAllocator {
  runtime: string;
  dataFiles: number;
  mergedDataMap: boolean;
  allMethods: {
    '64-bit': { withTempAllocator: number; withoutTempAllocator: number };
    arm32: { withTempAllocator: number; withoutTempAllocator: number };
  };
}

export interface MethodAllocatorBytes {
  '64-bit': { withTempAllocator: number; withoutTempAllocator: number };
  arm32: { withTempAllocator: number; withoutTempAllocator: number };
  runtime: string;
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

export interface GraphOptions {
  /** The .ptd files external tensors are resolved against; their names are what nodes' `file` says. */
  data?: DataFiles;
  /** Only this method. INVALID_ARGUMENT when the program has none of that name. */
  method?: string;
  /** 'json' (default): a ProgramGraph; 'dot' (Graphviz) or 'mermaid': the text. */
  format?: 'json' | 'dot' | 'mermaid';
}

/** Integers read from a file: a bigint beyond 2^53. */
type GraphInt = number | bigint;

/** One node of a method's plan graph (npm/schema/graph.schema.json); members beyond the first five depend on `kind`. */
export interface GraphNode {
  /** Unique within the method: 'c<chain>.i<index>', 'in<k>', 'out<k>', 'v<value>'. */
  id: string;
  kind: 'kernel' | 'delegate' | 'jumpFalse' | 'move' | 'free' | 'unknown' | 'input' | 'output' | 'constant' | 'mutable' | 'external';
  /** An instruction's position (the validator page's data-instruction="CHAIN:INDEX"); null for other nodes. */
  instruction: { chain: number; index: number } | null;
  /** The instruction's position over all chains in order; null for other nodes. */
  order: number | null;
  label: string;
  operator?: string | null;
  overload?: string | null;
  opIndex?: number;
  args?: number[];
  backend?: string | null;
  delegateIndex?: number;
  blobSize?: GraphInt | null;
  compileSpecs?: { key: string | null; bytes: number; value: string | number | null }[];
  cond?: number;
  target?: number;
  from?: number;
  to?: number;
  value?: number;
  position?: number;
  /** external: the .ptd key, and the name of the data file holding it (null: none given does). */
  key?: string | null;
  file?: string | null;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** The value flowing; null for a control edge (JumpFalse to its destination). */
  value: number | null;
  dtype: string | null;
  shape: GraphInt[] | null;
  kind: 'data' | 'control';
}

export interface GraphValue {
  index: number;
  type: string;
  dtype: string | null;
  shape: GraphInt[] | null;
  name: string | null;
  /** The memory plan's range (allocation_info). */
  memory: { id: GraphInt; offset: GraphInt; size: GraphInt | null } | null;
  /** Where the tensor's bytes are: in this file (absolute offset), or a .ptd key and file. */
  data: { kind: 'constant' | 'mutable' | 'external'; where: string | null; offset: GraphInt | null; size: GraphInt | null;
    key: string | null; file: string | null } | null;
  /** The first and last instruction (order) naming it. */
  live: { first: number; last: number } | null;
}

/** graph()'s JSON: `{schema: 1, methods}` (npm/schema/graph.schema.json). */
export interface ProgramGraph {
  schema: 1;
  methods: {
    name: string | null;
    index: number;
    /** Instructions per chain. */
    chains: number[];
    instructionCount: number;
    nodes: GraphNode[];
    edges: GraphEdge[];
    values: GraphValue[];
  }[];
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
}

// --- errors --------------------------------------------------------------------

export declare class EtpackError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: 'EtpackError';
  readonly code: ErrorCode;
  /** MISSING_EXTERNAL_DATA: the EXTERNAL tensor keys no given .ptd holds. */
  readonly keys?: string[];
  /** INVALID_INPUT / INVALID_OUTPUT: the validator's error findings. */
  readonly findings?: Finding[];
  /** WASM_LOAD_FAILED in browsers: the URLs tried for etpack.wasm, in order. */
  readonly urls?: string[];
}

// --- the API -------------------------------------------------------------------

export interface ExecutorchPack {
  /** The package version. */
  readonly version: string;
  /**
   * Resolves when the core is usable. After a failure that stopped the wasm
   * instance, or a call that left its heap large, the instance is replaced
   * (at once in Node; asynchronously in browsers, where calls made before
   * this resolves throw INTERNAL).
   */
  ready(): Promise<void>;
  readonly NamedDataStore: typeof NamedDataStore;
  readonly FlatTensorSerializer: typeof FlatTensorSerializer;
  readonly EtpackError: typeof EtpackError;

  /**
   * `serialize_for_executorch` upstream: the .pte and one .ptd per external tag.
   * @param dataSerializer default `new FlatTensorSerializer()`; any object with serialize(payload).
   * @param namedDataStore a store, its output, or null (a missing store counts as an empty one).
   */
  serializeForExecutorch(
    emitterOutput: EmitterOutput,
    config?: PteConfig | null,
    dataSerializer?: DataSerializer | null,
    namedDataStore?: NamedDataStore | NamedDataStoreOutputInput | null,
  ): SerializedArtifacts;
  serializeForExecutorch<O extends OutputOptions>(
    emitterOutput: EmitterOutput,
    config: PteConfig | null | undefined,
    dataSerializer: DataSerializer | null | undefined,
    namedDataStore: NamedDataStore | NamedDataStoreOutputInput | null | undefined,
    options: O,
  ): SerializedArtifacts<OutputOf<O>>;

  /** `serialize_pte_binary` upstream. */
  serializePteBinary(pteFile: PteFile, config?: PteConfig | null): Uint8Array;
  serializePteBinary<O extends OutputOptions>(pteFile: PteFile, config: PteConfig | null | undefined, options: O): OutputOf<O>;

  /** `deserialize_pte_binary` upstream. An absent named_data list stays absent. Segments of a file or Blob input come back as lazy Artifacts. */
  deserializePteBinary(data: Source | string): DeserializedPte;

  /** Upstream's `_program_to_json` text, exact for int64. */
  programToJson(program: ProgramInput | string): string;

  /**
   * A BundledProgram (.bpte): the program with test cases per method, byte
   * for byte as upstream's devtools/bundled_program serializer writes it.
   * Nothing is checked against the program (validate() does that).
   */
  serializeBundledProgram(bundle: BundledProgramInput): Uint8Array;
  serializeBundledProgram<O extends OutputOptions>(bundle: BundledProgramInput, options: O): OutputOf<O>;
  /** A .bpte read back: the same shape serializeBundledProgram takes. */
  deserializeBundledProgram(data: Source | string): BundledProgram;
  /**
   * The test cases of safetensors files: tensors (or metadata entries "Int 5",
   * "Double 1.5", "Bool true", "None") named METHOD.CASE.input.I and
   * METHOD.CASE.output.I, as the CLI's `bundle` reads and `unbundle` writes
   * them. `names` (else a File's name) name the files in errors. Rejects
   * with INVALID_INPUT (the naming) or the safetensors reader's codes.
   */
  testCasesFromSafetensors(files: AsyncSource[], options?: { names?: string[] }): Promise<BundledTestCases>;

  /**
   * A summary of a .pte or .ptd: methods, constants, named data, segment map,
   * bytes by category. inspect() and validate() read only the head of a file
   * (header and flatbuffer) and peek at padding; segment data is never
   * loaded, so multi-GB files are fine. (An opened Blob's padding past its
   * head cannot be peeked at synchronously and goes unchecked.)
   */
  inspect(data: Source | string, options: InspectOptions & { kind: 'ptd' }): PtdSummary;
  inspect(data: Source | string, options: InspectOptions & { kind: 'pte' }): PteSummary;
  /** A .bpte: pass `{ kind: 'bpte' }` for this type (without it a .bpte is still read as one). */
  inspect(data: Source | string, options: InspectOptions & { kind: 'bpte' }): BpteSummary;
  inspect(data: Source | string, options?: InspectOptions): PteSummary | PtdSummary;

  /**
   * Every problem of a .pte and its .ptd files (external tensors are resolved
   * against `ptds`), or of a .ptd given on its own (then each of `ptds` is
   * checked on its own too). A .bpte: its embedded program as a .pte with
   * `ptds` (findings of file 'pte', offsets inside the program), then every
   * test case against its method (findings of file 'bpte', BUNDLE_* codes,
   * paths like method_test_suites[0].test_cases[1].inputs[0]).
   */
  validate(pte: Source | string, ptds?: DataFiles, options?: ValidateOptions): ValidationReport;

  /**
   * Rewrites a .pte with a new layout; can move constants out into a .ptd and
   * merge .ptd files in. Only the heads of the inputs are read; segment bytes
   * are referenced and streamed into the outputs. `pte` may be a path (Node).
   * The inputs are validated first (INVALID_INPUT with `error.findings`,
   * except a missing constant-segment placeholder, which repack adds), and
   * so are the outputs before anything is returned (INVALID_OUTPUT).
   */
  repack(pte: Source | string, options?: (RepackOptions & { output?: 'bytes' }) | null): RepackResult;
  repack(pte: Source | string, options: RepackOptions & { output: 'blob' }): RepackResult<Blob>;
  repack(pte: Source | string, options: RepackOptions & { output: 'artifact' }): RepackResult<Artifact>;

  /**
   * One delegate's processed blob (what its backend receives), byte for
   * byte, whether the .pte keeps it inline or in a segment. Only the head of
   * the .pte is read; the blob is a range of it. `pte` may be a path (Node).
   * INVALID_ARGUMENT for a delegate or method the program does not have;
   * MALFORMED_FILE when the blob's reference points past the file.
   */
  extract(pte: Source | string, options?: (ExtractOptions & { output?: 'bytes' }) | null): ExtractResult;
  extract(pte: Source | string, options: ExtractOptions & { output: 'blob' }): ExtractResult<Blob>;
  extract(pte: Source | string, options: ExtractOptions & { output: 'artifact' }): ExtractResult<Artifact>;

  /**
   * The plan graph of a .pte: per method, a node per instruction, nodes for
   * inputs, outputs, constants, mutable buffers and external tensors (with
   * the .ptd of `data` holding each), and edges for the values flowing
   * (value, dtype, shape); values with their memory-plan ranges and file
   * locations. As JSON, or DOT / Mermaid text. Only the heads of the files
   * are read. `pte` may be a path (Node).
   */
  graph(pte: Source | string, options?: (GraphOptions & { format?: 'json' }) | null): ProgramGraph;
  graph(pte: Source | string, options: GraphOptions & { format: 'dot' | 'mermaid' }): string;

  /**
   * An ETDump (.etdp, the runtime's event tracer output) as it is in the
   * file: flatc's decode with schema defaults filled in (snake_case fields,
   * enums by name). `etdump` may be a path (Node). MALFORMED_FILE (naming
   * the offset) for bytes that are not an ETDump; UNSUPPORTED_VERSION for
   * another identifier or version.
   */
  readETDump(etdump: Source | string): ETDump;

  /**
   * An ETDump joined to the .pte that ran: the method of each block, the
   * operator or delegate of each event, per operator and per delegate
   * statistics over the execute runs. INVALID_ARGUMENT for a named method
   * the program lacks.
   */
  profile(etdump: Source | string, pte: Source | string, options?: ProfileOptions): Profile;

  /** A profile as Chrome trace-event JSON (Perfetto, chrome://tracing). */
  profileTrace(profile: Profile, options?: { processName?: string }): ChromeTrace;

  /**
   * Compares two .pte files (with their .ptd files) or two .ptd files by
   * meaning; tensor bytes are hashed by streaming. Layout is reported apart.
   */
  diff(a: AsyncSource | string, b: AsyncSource | string, options?: DiffOptions): Promise<DiffResult>;

  /**
   * The .ptd holding a program's external tensors, bytes from safetensors
   * checkpoints (sources, paths, or a sharded checkpoint's
   * `.safetensors.index.json` path in Node) by fully-qualified name. dtype and
   * shape must match: otherwise WEIGHTS_MISMATCH, with `problems` listing every
   * missing or mismatched tensor.
   */
  ptdFromWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options?: PtdFromWeightsOptions & { output?: 'bytes' }): Promise<PtdFromWeightsResult>;
  ptdFromWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options: PtdFromWeightsOptions & { output: 'blob' }): Promise<PtdFromWeightsResult<Blob>>;
  ptdFromWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options: PtdFromWeightsOptions & { output: 'artifact' }): Promise<PtdFromWeightsResult<Artifact>>;

  /**
   * The .pte with the constants stored in it replaced by name from
   * safetensors checkpoints (programs exported without a .ptd); same checks
   * as ptdFromWeights, the input's layout unless options say otherwise.
   */
  pteWithWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options?: PteWithWeightsOptions & { output?: 'bytes' }): Promise<PteWithWeightsResult>;
  pteWithWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options: PteWithWeightsOptions & { output: 'blob' }): Promise<PteWithWeightsResult<Blob>>;
  pteWithWeights(pte: AsyncSource | string, checkpoints: AsyncSource | string | Array<AsyncSource | string>,
    options: PteWithWeightsOptions & { output: 'artifact' }): Promise<PteWithWeightsResult<Artifact>>;

  /**
   * Every named constant and external tensor (bytes from `data`, the
   * program's .ptd files) as one safetensors file, bytes referenced until
   * written. Tensors without a safetensors dtype are listed in `skipped`.
   */
  exportWeights(pte: Source | string, data?: DataFiles,
    options?: ExportWeightsOptions & { output?: 'bytes' }): ExportWeightsResult;
  exportWeights(pte: Source | string, data: DataFiles | undefined,
    options: ExportWeightsOptions & { output: 'blob' }): ExportWeightsResult<Blob>;
  exportWeights(pte: Source | string, data: DataFiles | undefined,
    options: ExportWeightsOptions & { output: 'artifact' }): ExportWeightsResult<Artifact>;

  /** Node: a file on disk as an input (read in ranges, never whole). */
  openFile(path: string): FileSource;

  /**
   * Prepares a Blob/File for the synchronous core: a .pte/.ptd gets its head
   * read (for deserialize/repack), other data its SHA-256 (for exact dedup;
   * `digest: false` skips it). The asynchronous calls (diff, ptdFromWeights,
   * pteWithWeights) do this themselves for the models they are given.
   */
  openBlob(blob: Blob, options?: { digest?: boolean; signal?: AbortSignal }): Promise<OpenedBlob>;

  /**
   * A remote file read by HTTP range requests: usable wherever a file is
   * (inspect, validate, deserializePteBinary, repack and merge inputs, data).
   * Fetches the head now; the version is pinned (ETag/Last-Modified,
   * If-Range), so a file that changes is SOURCE_CHANGED, never a mix.
   */
  openUrl(url: string | URL, options?: OpenUrlOptions): Promise<UrlSource>;

  /**
   * Runs a synchronous call on URL sources, fetching what it turned out to
   * need beyond their heads (the ends or whole ranges dedup compares when
   * merging; padding past the prefetch; bytes of a contiguous output) and
   * running it again, within `rounds` (default 16) and `maxBytes` (64 MiB).
   * E.g. `await et.withFetchedRanges(() => et.repack(src, { merge, output: 'artifact' }))`.
   */
  withFetchedRanges<T>(fn: () => T, options?: { rounds?: number; maxBytes?: number }): Promise<T>;
}

export interface InitOptions {
  /**
   * Where etpack.wasm is: called with ('etpack.wasm', prefix); returns a URL
   * (browsers; `prefix` is the directory of the script or bundle) or a path
   * or file: URL (Node). Default: where a bundler emitted it, else beside the
   * bundle. In browsers it is fetched before compiling: a failure is
   * WASM_LOAD_FAILED naming each URL tried with its HTTP status (`urls` on
   * the error).
   */
  locateFile?: (path: string, prefix: string) => string;
  /** The wasm module's bytes, when the application loads them itself. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/**
 * Instantiates the wasm module once; later calls return the same instance
 * (their options are then ignored). A failed init() rejects with
 * WASM_LOAD_FAILED and is not cached: a later call tries again.
 */
export default function init(options?: InitOptions): Promise<ExecutorchPack>;
