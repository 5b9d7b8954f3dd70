// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// graph(): a program's plan as nodes and edges (npm/schema/graph.schema.json).

import type { DataFiles } from './repack.js';

export interface GraphOptions {
  /** The .ptd files external tensors are resolved against; their names are what nodes' `file` says. */
  data?: DataFiles;
  /** Only this method. INVALID_ARGUMENT when the program has none of that name. */
  method?: string;
  /** 'json' (default): a ProgramGraph; 'dot' (Graphviz) or 'mermaid': the text. */
  format?: 'json' | 'dot' | 'mermaid';
  /**
   * 'collapse' (default): one node per DelegateCall. 'expand': a delegate whose
   * payload has a graph (XNNPACK, Vulkan, MPS, MLX, native) is drawn as its
   * nodes ('delegateNode') and edges, joined to the program's values by the
   * call's args; others stay one node with `expandNote`.
   */
  delegates?: 'collapse' | 'expand';
}

/** Integers read from a file: a bigint beyond 2^53. */
type GraphInt = number | bigint;

/** One node of a method's plan graph (npm/schema/graph.schema.json); members beyond the first five depend on `kind`. */
export interface GraphNode {
  /** Unique within the method: 'c<chain>.i<index>', 'in<k>', 'out<k>', 'v<value>'. */
  id: string;
  kind: 'kernel' | 'delegate' | 'delegateNode' | 'jumpFalse' | 'move' | 'free' | 'unknown' | 'input' | 'output' | 'constant' | 'mutable' | 'external';
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
  /** delegateNode (delegates: 'expand'): the payload kind, the node's index in the payload, its debug handle. */
  payloadKind?: string;
  payloadNode?: number;
  debugHandle?: GraphInt | null;
  /** delegate, with delegates: 'expand': why the call stays one node. */
  expandNote?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** The value flowing; null for a control edge (JumpFalse to its destination). */
  value: number | null;
  dtype: string | null;
  shape: GraphInt[] | null;
  kind: 'data' | 'control';
  /** Between two nodes of an expanded delegate: the payload's value (value is null). */
  payloadValue?: string;
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
