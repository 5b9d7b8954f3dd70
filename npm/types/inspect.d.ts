// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// inspect()'s summaries of a .pte and a .ptd, and the method allocator's figures.
import type { Int64 } from '../index.js';
import type { CoreMLModelFacts } from './delegate.js';
import type { DataFiles, MetadataValue } from './repack.js';
import type { NanBits } from './program.js';

/** A model-card value: a metadata value, or a non-canonical NaN's bits. */
export type CardValue = MetadataValue | NanBits | CardValue[];

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
    /**
     * What the blob holds, decoded by its kind (decodeDelegate): null when the
     * blob is not where the program says, larger than 64 MiB or unreadable;
     * kind 'invalid' (with the decoder's error) when a known backend's blob
     * does not hold together.
     */
    payload: DelegatePayloadSummary | { kind: 'invalid'; error: string } | null;
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
   * value (one output) or the array of its values (several). A Double NaN
   * other than the canonical one is {@link NanBits} (its sign and payload).
   */
  metadata: Record<string, CardValue | CardValue[]>;
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
  /**
   * Weights in this file: constants, the .pte's named data, the constant
   * regions inside delegate blobs (delegateConstants; delegateGraphs is the
   * rest of the blobs), and their total.
   */
  weights: { constants: number; namedData: number; delegateConstants: number; delegateGraphs: number; total: number };
}

/**
 * inspect()'s named-data entries in columns: entry i is `key[i]`,
 * `segment[i]`, `size[i]`. Every array has `count` elements. A file can hold
 * a million entries: a few arrays cost a small multiple of the file, where a
 * million objects would not.
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
  /**
   * When the dataFiles cannot be loaded together (a key in two of them:
   * Module refuses the set, validate's DUPLICATE_KEY_ACROSS_FILES): why,
   * since the figures then describe a set that never loads. Set by inspect().
   */
  warnings?: string[];
  allMethods: {
    '64-bit': { withTempAllocator: number; withoutTempAllocator: number };
    arm32: { withTempAllocator: number; withoutTempAllocator: number };
  };
}

/**
 * What load_method takes from the method allocator: the exact minimum bytes
 * of a 64-byte-aligned pool, with and without a temp allocator, replayed from
 * the file (backends' own init() requests excluded; the merged data map a
 * .pte with a named_data table costs when .ptd files are given is counted
 * when inspect() is given them as dataFiles). `runtime`: the ExecuTorch
 * runtime the figures were measured on.
 */
export interface MethodAllocatorBytes {
  '64-bit': { withTempAllocator: number; withoutTempAllocator: number };
  arm32: { withTempAllocator: number; withoutTempAllocator: number };
  runtime: string;
}

/** inspect()'s summary of a delegate's blob. */
export interface DelegatePayloadSummary {
  kind: 'xnnpack' | 'vulkan' | 'mps' | 'mlx' | 'native' | 'coreml' | 'qnn' | 'ethosu' | 'opaque';
  /** Graph nodes and values (flatbuffer kinds; null for the others). */
  nodes: number | null;
  values: number | null;
  /** Operator (node type, call name or target) -> count. */
  operators: Record<string, number>;
  /** Tensor values by dtype as the backend's schema names it ('xnn_datatype_qcint8', 'FLOAT'). */
  dtypes: Record<string, number>;
  /** Quantized values by scheme ('PerChannelQuant', 'AffineGroup', ...). */
  quantization: Record<string, number>;
  /** Bytes of the blob's own constant or data region. */
  constantBytes: number | bigint;
  /**
   * The named-data keys the backend looks up at init() (XNNPACK: a present
   * key, even ''), with the size the blob records; `in` is 'pte' when the
   * .pte's named data holds the key, else the name of the given .ptd
   * (options.dataFiles) that holds it, or null (in no given file);
   * `storedBytes` is the entry's size there.
   */
  namedKeys: { key: string; bytes: number | bigint | null; in: 'pte' | string | null; storedBytes: number | null }[];
  /**
   * Core ML's file tree: the model's identifier and I/O names (its
   * metadata.json), the root model file (the .mlpackage's Manifest.json) and
   * its specification version; null for other kinds.
   */
  model: CoreMLModelFacts | null;
}
