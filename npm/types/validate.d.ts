// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// validate()'s options and report.

import type { FindingCode } from './codes.js';
import type { Int64 } from '../index.js';

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
