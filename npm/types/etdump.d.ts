// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// ETDump profiles (.etdp): readETDump(), profile() and profileTrace().

import type { DelegateCall, FreeCall, JumpFalseCall, KernelCall, MoveCall } from './program.js';
import type { DataFiles } from './repack.js';

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
  /** endTime - startTime, exact (uint64); null when the event ends before it starts (a warning says so; no statistic counts it). */
  duration: number | bigint | null;
  delegateDebugIdInt?: number;
  /**
   * A delegate-internal event whose delegateDebugIdInt is a debug handle of
   * its delegate's decoded graph (XNNPACK's XNode.debug_handle, Vulkan's
   * OperatorCall.node_id): those nodes (index in the payload's node list,
   * operator); empty when no node has it. Absent for other events.
   */
  delegateNodes?: { index: number; operator: string }[];
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
  /** Exact: summed in 128 bits, so it may pass 2^64 (a BigInt past 2^53). */
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
