// Types for executorch-pack, part of ./index.d.ts (which re-exports them all):
// delegate payloads, decodeDelegate().

export interface DecodeDelegateOptions {
  /**
   * The delegate's backend id (BackendDelegate.id; extract()'s `id`), e.g.
   * 'XnnpackBackend'. Without it the kind is found by the blob's magic.
   */
  backend?: string | null;
}

/** A number read from the blob: a bigint beyond 2^53. */
export type PayloadNumber = number | bigint;

/**
 * A flatbuffer graph as `flatc --json --strict-json --defaults-json` prints it
 * against the backend's schema: fields in schema order, every scalar present,
 * enums and union types by name, a union as `<field>_type` + `<field>`,
 * absent tables/strings/vectors left out; floats are the stored values
 * (NaN and ±Infinity as numbers), 64-bit integers beyond 2^53 bigints.
 */
export type PayloadGraph = { [field: string]: PayloadGraphValue };
export type PayloadGraphValue = PayloadNumber | boolean | string | PayloadGraph | PayloadGraphValue[];

/** A Core ML in-memory filesystem node (`content.tree`). */
export interface CoreMLNode {
  index: number;
  name: string;
  kind: 'file' | 'directory';
  /** Relative to the root, '/'-separated ('' for the root). */
  path: string;
  /** Files: where the bytes are in the blob. */
  offset?: PayloadNumber;
  size?: PayloadNumber;
  /** Directories: sorted by name. */
  children?: CoreMLNode[];
}

export interface EthosUBlock {
  name: string;
  header_offset: number;
  data_offset: number;
  size: number;
  padded_size: number;
  /** 1: the data is a named-data key (`named_data_key`). */
  external: number;
  named_data_key?: string;
  /** scratch_size. */
  value?: number;
  /** inputs / outputs. */
  count?: number;
  ios?: EthosUIo[];
}
export interface EthosUIo { shape: number[]; elem_size: number; offset: number; region: number }

/**
 * decodeDelegate()'s result. `header` holds the wrapper's fields under the
 * names of the reference vectors' header.json (e.g. XNNPACK: magic,
 * header_length, flatbuffer_offset, flatbuffer_size, constant_data_offset,
 * constant_data_size, blob_size, flatbuffer_identifier, flatbuffer_root_offset).
 */
export type DecodedDelegate =
  | { kind: 'xnnpack' | 'vulkan' | 'mps' | 'mlx' | 'native'; header: Record<string, PayloadNumber | string>; graph: PayloadGraph }
  | {
      kind: 'coreml';
      header: Record<string, PayloadNumber | string>;
      /** The file tree's model (absent for a CMJR reference). */
      model?: CoreMLModelFacts;
      /** The in-memory filesystem, or for a multifunction model the CMJR reference. */
      content:
        | {
            root_name: string; tree: CoreMLNode;
            files: { path: string; index: number; offset: PayloadNumber; size: PayloadNumber }[];
            metadata_json_text: string;
            coreml_metadata_json_text: string | null;
            coreml_debug_info_json_text: string | null;
          }
        | { magic: 'CMJR'; reference_json_text: string; reference: { version?: number; key: string; functionName?: string } };
    }
  | {
      kind: 'qnn';
      header: Record<string, PayloadNumber | string>;
      content: { magic: '0x5678ABCD'; signature: PayloadNumber; context_binary_size: PayloadNumber; context_binary_offset: number };
    }
  | {
      kind: 'ethosu';
      header: Record<string, PayloadNumber | string>;
      content: { blocks: EthosUBlock[]; inputs?: EthosUIo[]; outputs?: EthosUIo[]; scratch_size?: number };
    }
  | { kind: 'opaque'; header: { blob_size: PayloadNumber } };

/** What a Core ML payload says about its model (null where it does not say). */
export interface CoreMLModelFacts {
  identifier: string | null;
  inputNames: string[] | null;
  outputNames: string[] | null;
  modelFile: string | null;
  specificationVersion: number | null;
}
