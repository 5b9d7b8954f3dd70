// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// BundledProgram (.bpte): serializeBundledProgram(), deserializeBundledProgram(), testCasesFromSafetensors().

import type { NanBits, Tensor } from './program.js';
import type { Int64, Source } from '../index.js';
import type { PteSummary } from './inspect.js';

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
  | { val_type: 'Double'; val: { double_val: number | NanBits } }
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
  | { val_type: 'Double'; val: { double_val: number | NanBits } }
  | { val_type: 'Bool'; val: { bool_val: boolean } }
  | { val_type: null; val: null };

/** A value as inspect() of a .bpte lists it. */
export type BundledValueSummary =
  | { type: 'Tensor'; dtype: string | null; scalarType: number; shape: number[] | null; dimOrder: number[] | null;
      dataOffset: number | null; dataSize: number | null }
  | { type: 'Int'; value: Int64 }
  | { type: 'Double'; value: number; /** the exact IEEE-754 bits, "0x" and 16 hex digits (a NaN's sign and payload) */ bits: string }
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
