/// <reference path="./types/dispose.d.ts" />
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
  Operator, BackendDelegate, BackendDelegateDataReference, CompileSpec, SubsegmentOffsets, FlatTensor, NanBits, Float,
} from './types/program.js';
/** `ScalarType.FLOAT === 6`: the codes by name (a value), and the type of a code. */
export { ScalarType } from './types/scalar-type.js';
/** Every table, enum and union of the schema, by its schema name (types only). */
import type * as schema from './types/program.js';
export type { schema };
export type { FindingCode, ErrorCode } from './types/codes.js';
import type { FindingCode, ErrorCode } from './types/codes.js';

// The rest of the types, by area (each file imports what it refers to).
export * from './types/store.js';
import type { DataSerializer, DeserializedPte, EmitterOutput, FlatTensorSerializer, NamedDataStore, NamedDataStoreOutputInput, PteConfig, PteFile, SerializedArtifacts } from './types/store.js';
export * from './types/diff-weights.js';
import type { DiffOptions, DiffResult, ExportWeightsOptions, ExportWeightsResult, PtdFromWeightsOptions, PtdFromWeightsResult, PteWithWeightsOptions, PteWithWeightsResult } from './types/diff-weights.js';
export * from './types/etdump.js';
import type { ChromeTrace, ETDump, Profile, ProfileOptions } from './types/etdump.js';
export * from './types/inspect.js';
import type { InspectOptions, PtdSummary, PteSummary } from './types/inspect.js';
export * from './types/bundled.js';
import type { BpteSummary, BundledProgram, BundledProgramInput, BundledTestCases } from './types/bundled.js';
export * from './types/validate.js';
import type { Finding, ValidateOptions, ValidationReport } from './types/validate.js';
export * from './types/repack.js';
import type { DataFiles, ExtractOptions, ExtractResult, RepackOptions, RepackResult } from './types/repack.js';
export * from './types/graph.js';
export * from './types/delegate.js';
import type { DecodeDelegateOptions, DecodedDelegate } from './types/delegate.js';
import type { GraphOptions, ProgramGraph } from './types/graph.js';

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

// --- errors --------------------------------------------------------------------

export declare class EtpackError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: 'EtpackError';
  readonly code: ErrorCode;
  /** MISSING_EXTERNAL_DATA: the EXTERNAL tensor keys no given .ptd holds; MISSING_DELEGATE_DATA: the delegates' named keys no output would hold. */
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
   * A delegate's blob (extract()'s `bytes`; a path in Node) decoded by its kind (types/delegate.d.ts).
   * MALFORMED_FILE (naming the payload offset) when a known kind's blob does not hold together.
   */
  decodeDelegate(blob: Source | string, options?: DecodeDelegateOptions | null): DecodedDelegate;

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
   * the program lacks. The arguments go in the CLI's order (`profile PTE
   * --etdump FILE`); `profile(etdump, pte)` works too: the ETDump is
   * recognised by its identifier, whichever argument it is.
   */
  profile(pte: Source | string, etdump: Source | string, options?: ProfileOptions): Profile;

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
   * Tied weights (one constant buffer under several names) take one value:
   * given under any one of the names, or under several with equal bytes
   * (different bytes: WEIGHTS_MISMATCH naming both).
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