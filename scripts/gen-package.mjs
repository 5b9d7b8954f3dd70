// Generates the parts of the npm package that are derived from other
// sources, so they cannot drift from them (run by `npm pack` of npm/ via
// prepack, and by the tests that need them):
//   npm/types/program.d.ts  Program types from src/schema/*.fbs
//   npm/types/codes.d.ts    FindingCode from src/validate/*findings.def (the C++
//                           `finding` constants) and the findings npm/src adds to reports,
//                           ErrorCode from the core's error names
//                           (src/core/error.cpp) and every code the JS layer throws
//   npm/src/scalar-type.mjs, npm/types/scalar-type.d.ts  the ScalarType
//                           constants (name -> code) from src/schema/scalar_type.fbs;
//                           the .mjs is committed (the entries import it, so a
//                           checkout runs without this script) and a test
//                           checks it against the schema
//   npm/src/generated/file-kinds.mjs    FILE_KINDS and fileKindOf() from
//                           src/format/file_kinds.def (the C++ table's rows)
//   npm/src/generated/scalar-types.mjs  SCALAR_TYPES from src/model/scalar_types.def,
//                           checked against src/schema/scalar_type.fbs
//   npm/src/generated/safetensors-dtypes.mjs  SAFETENSORS_DTYPES and
//                           scalarSafetensorsDtype() from src/read/safetensors_dtypes.def
//                           (the core safetensors reader's table), codes checked
//                           against src/model/scalar_types.def
//   npm/src/generated/schema-enums.mjs  the schema's enums and unions by member
//                           name (TensorDataLocation.EXTERNAL) from src/schema/*.fbs,
//                           as cmake/schema_enums.cmake gives them to the C++
//   npm/src/generated/stream-tags.mjs  the value stream's magic and tags from
//                           src/core/value_stream_tags.def (the core's StreamTag)
//   npm/dist/etpack-wasm.inline.mjs  the wasm as base64 in a JS module, for
//                           `executorch-pack/inline` (bundlers without .wasm assets)
//   npm/dist/cli/           the CLI bundled into one script with its V8 code
//                           cache (scripts/build-cli.mjs; package.json's `bin`)
//   npm/README.md           the user README, npm/docs/README.md (the repository's
//                           README.md is for contributors)
//   npm/LICENSE, npm/examples/  copies of the repository's, so the tarball
//                           carries the license and the example the README names
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync, renameSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildCli } from './build-cli.mjs';
import { HEADER, defRows, fileKinds, parseFbs, safetensorsDtypes, scalarTypes, schemaEnums, streamTags } from './gen-tables.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = join(root, 'npm');

// Tests generate these files in parallel processes: a file is replaced by a
// rename (never seen half-written) and only when its content changes.
function put(path, content) {
  const text = Buffer.from(content);
  if (existsSync(path) && readFileSync(path).equals(text)) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

// --- schema -> TypeScript ----------------------------------------------------------

const INT64 = new Set(['long', 'int64', 'ulong', 'uint64']);
const NUMBER = new Set(['byte', 'ubyte', 'short', 'ushort', 'int', 'uint', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'float', 'double', 'float32', 'float64']);

function programTypes() {
  const files = ['scalar_type.fbs', 'program.fbs', 'flat_tensor.fbs'];
  const seen = new Map();  // the first definition of a name wins (`DataSegment`, `NamedData` are the same shape in both)
  const order = [];
  for (const f of files) {
    for (const def of parseFbs(readFileSync(join(root, 'src/schema', f), 'utf8'))) {
      if (seen.has(def.name)) continue;
      seen.set(def.name, def);
      order.push(def);
    }
  }
  const enums = new Set(order.filter((d) => d.kind === 'enum').map((d) => d.name));
  const unions = new Map(order.filter((d) => d.kind === 'union').map((d) => [d.name, d]));
  const scalar = (t) => {
    const base = t.split('.').pop();
    if (INT64.has(t)) return 'Int64';
    if (t === 'double' || t === 'float' || t === 'float64' || t === 'float32') return 'Float';
    if (NUMBER.has(t)) return 'number';
    if (t === 'bool') return 'boolean';
    if (t === 'string') return 'string';
    if (enums.has(base)) return base;
    return null;
  };
  const lines = [HEADER,
    '// The Program (.pte) and FlatTensor (.ptd) tables in upstream\'s',
    '// `_program_to_json` shape: snake_case fields, enums as integers, a union',
    '// field `f` with its member\'s table name in `f_type`. What the API returns',
    '// has every field: scalars with their value (defaults included), absent',
    '// tables, strings, vectors and unions as null. Inputs may leave any field',
    '// out (see `Input<T>`).', '',
    '/** An int64 field: a Number when it is a safe integer, a BigInt otherwise. */',
    'export type Int64 = number | bigint;', '',
    '/**',
    ' * A NaN other than the canonical quiet one (bits 7ff8000000000000, what a',
    ' * Number NaN stands for): −NaN, a signalling NaN, a payload. `nanBits` is',
    ' * the 64-bit pattern as 16 hex digits, most significant first',
    ' * (`{ nanBits: \'fff8000000000000\' }` is −NaN). Read that way, and accepted',
    ' * wherever a double is written, so the bits survive both ways.',
    ' */',
    'export interface NanBits { nanBits: string }', '',
    '/** A float/double field: upstream\'s JSON writes infinities as the strings \'inf\' / \'-inf\'; a non-canonical NaN is {@link NanBits}. */',
    'export type Float = number | \'inf\' | \'-inf\' | NanBits;', '',
    '/** A [ubyte] vector: a Uint8Array when read; any byte array or integer list when written. */',
    'export type ByteVector = Uint8Array;', ''];
  for (const def of order) {
    if (def.kind === 'enum') {
      lines.push(`/** ${def.name}: ${def.members.map((m, i) => `${i} = ${m}`).join(', ')}. */`);
      lines.push(`export type ${def.name} = number;`, '');
    } else if (def.kind === 'union') {
      lines.push(`/** The members of union ${def.name}, by their \`_type\` name. */`);
      lines.push(`export interface ${def.name}Members {`);
      for (const m of def.members) lines.push(`  ${m}: ${m};`);
      lines.push('}', '');
    } else {
      const fields = [];
      const unionFields = [];
      for (const { field, type } of def.fields) {
        const list = type.startsWith('[');
        const inner = list ? type.slice(1, -1) : type;
        const base = inner.split('.').pop();
        if (unions.has(base)) {
          unionFields.push({ field, members: unions.get(base).members });
          continue;
        }
        const s = scalar(inner);
        let ts;
        if (list) ts = inner === 'ubyte' || inner === 'uint8' ? 'ByteVector | null' : `${s ?? base}[] | null`;
        else if (s === 'string') ts = 'string | null';
        else ts = s ?? `${base} | null`;
        fields.push(`  ${field}: ${ts};`);
      }
      if (!unionFields.length) {
        lines.push(`export interface ${def.name} {`, ...fields, '}');
      } else {
        // A table with a union field: a discriminated union, one variant per
        // member table plus the absent case.
        lines.push(`export interface ${def.name}Fields {`, ...fields, '}');
        const variants = unionFields.map(({ field, members }) => `(\n    | ${members
          .map((m) => `{ ${field}_type: '${m}'; ${field}: ${m} }`).join('\n    | ')}\n    | { ${field}_type: null; ${field}: null })`);
        lines.push(`export type ${def.name} = ${def.name}Fields & ${variants.join(' & ')};`);
      }
      lines.push('');
    }
  }
  lines.push(
    '/** What the API accepts: any field may be left out (defaults apply), byte vectors',
    ' * take any byte array or integer list, integers may be BigInts, enums integers,',
    ' * a union\'s `_type` its member\'s name. */',
    'export type Input<T> = T extends Uint8Array ? ArrayBufferView | ArrayBuffer | number[]',
    '  : T extends (infer E)[] ? Input<E>[]',
    '  : T extends number ? number | bigint',
    '  : T extends object ? { [K in keyof T]?: Input<T[K]> | null }',
    '  : T;', '',
    'export type ProgramInput = Input<Program>;',
    '');
  return lines.join('\n');
}

// --- codes -----------------------------------------------------------------------

function jsFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist' && e.name !== 'types') out.push(...jsFiles(p));
    else if (e.name.endsWith('.mjs')) out.push(p);
  }
  return out;
}

function codesTypes() {
  // The core's findings: the rows of src/validate/findings.def, then each
  // kind's own (src/validate/<kind>_findings.def: bundled_findings.def, the
  // .bpte test cases'), as the C++ `finding` constants are made from them.
  const defs = readdirSync(join(root, 'src/validate')).filter((f) => f.endsWith('findings.def'))
    .sort((x, y) => (x === 'findings.def' ? -1 : y === 'findings.def' ? 1 : x.localeCompare(y)));
  const findings = defs.flatMap((f) => defRows(`src/validate/${f}`, 'FINDING').map(([, code]) => code));
  // Findings the JS layer adds to a report (`report.warnings.push({ code: ... })`).
  for (const f of jsFiles(join(npm, 'src'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:warnings|errors)\.push\(\{\s*code:\s*['"]([A-Z0-9_]+)['"]/g)) findings.push(m[1]);
  }
  const core = [...readFileSync(join(root, 'src/core/error.cpp'), 'utf8').matchAll(/return "([A-Z0-9_]+)"/g)]
    .map((m) => m[1]).filter((c) => c !== 'OK');
  const js = new Set(['INVALID_ARGUMENT']);  // invalidArgument()
  for (const f of jsFiles(npm)) {
    for (const m of readFileSync(f, 'utf8').matchAll(/EtpackError\(\s*['"]([A-Z0-9_]+)['"]/g)) js.add(m[1]);
  }
  const errors = [...new Set([...core, ...[...js].sort()])];
  const union = (list) => [...new Set(list)].map((c) => `  | '${c}'`).join('\n');
  return `${HEADER}
/** Stable codes of validate() findings (src/validate/*findings.def). */
export type FindingCode =
${union(findings)};

/** Codes of thrown EtpackErrors: the core's (src/core/error.cpp), then the JS layer's. */
export type ErrorCode =
${union(errors)};
`;
}

// --- ScalarType constants ----------------------------------------------------------

// [name, code] of `enum ScalarType` in src/schema/scalar_type.fbs, in file order.
function scalarTypeMembers() {
  const text = readFileSync(join(root, 'src/schema/scalar_type.fbs'), 'utf8').replace(/\/\/[^\n]*/g, '');
  const body = text.match(/\benum\s+ScalarType\s*:\s*\w+\s*\{([^}]*)\}/);
  if (!body) throw new Error('src/schema/scalar_type.fbs: no `enum ScalarType`');
  const members = [...body[1].matchAll(/(\w+)\s*=\s*(\d+)/g)].map(([, name, code]) => [name, Number(code)]);
  if (!members.length) throw new Error('src/schema/scalar_type.fbs: `enum ScalarType` has no `NAME = code` members');
  return members;
}

export function scalarTypeModule() {
  const rows = scalarTypeMembers().map(([name, code]) => `  ${name}: ${code},`);
  return `${HEADER}// ExecuTorch's ScalarType codes by name, from src/schema/scalar_type.fbs
// (the \`scalar_type\` of a Tensor, \`scalarType\` of a tensor layout):
// \`ScalarType.FLOAT === 6\`. Exported by every entry of the package.
export const ScalarType = Object.freeze({
${rows.join('\n')}
});
`;
}

function scalarTypeTypes() {
  const rows = scalarTypeMembers().map(([name, code]) => `  readonly ${name}: ${code};`);
  return `${HEADER}
/** ExecuTorch's ScalarType codes by name (src/schema/scalar_type.fbs): \`ScalarType.FLOAT === 6\`. */
export declare const ScalarType: {
${rows.join('\n')}
};
/** A ScalarType code: one of the values of {@link ScalarType}. */
export type ScalarType = (typeof ScalarType)[keyof typeof ScalarType];
`;
}

function inlineWasm() {
  const wasm = readFileSync(join(npm, 'dist/etpack.wasm'));
  return `${HEADER}// The wasm module, base64 (${wasm.byteLength} bytes), for bundlers that cannot emit a .wasm asset.
const BASE64 = '${wasm.toString('base64')}';

export default function wasmBytes() {
  if (typeof Buffer === 'function') return new Uint8Array(Buffer.from(BASE64, 'base64'));
  const text = atob(BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  return bytes;
}
`;
}

// The example imports the package by name inside the package (Node resolves
// a package's own name through its exports).
function copyDocs() {
  put(join(npm, 'README.md'), readFileSync(join(npm, 'docs/README.md')));
  put(join(npm, 'LICENSE'), readFileSync(join(root, 'LICENSE')));
  mkdirSync(join(npm, 'examples'), { recursive: true });
  const example = readFileSync(join(root, 'examples/build-model.mjs'), 'utf8');
  const fixed = example.replace(/^\/\/ Inside this repository;.*\n/m, '').replace("from '../npm/index.node.mjs'", "from 'executorch-pack'");
  if (fixed === example) throw new Error('examples/build-model.mjs: its import of ../npm/index.node.mjs was not found');
  put(join(npm, 'examples/build-model.mjs'), fixed);
}

export function generate() {
  copyDocs();
  mkdirSync(join(npm, 'types'), { recursive: true });
  put(join(npm, 'types/program.d.ts'), programTypes());
  put(join(npm, 'types/codes.d.ts'), codesTypes());
  put(join(npm, 'types/scalar-type.d.ts'), scalarTypeTypes());
  put(join(npm, 'src/scalar-type.mjs'), scalarTypeModule());
  mkdirSync(join(npm, 'src/generated'), { recursive: true });
  put(join(npm, 'src/generated/file-kinds.mjs'), fileKinds());
  put(join(npm, 'src/generated/scalar-types.mjs'), scalarTypes());
  put(join(npm, 'src/generated/safetensors-dtypes.mjs'), safetensorsDtypes());
  put(join(npm, 'src/generated/schema-enums.mjs'), schemaEnums());
  put(join(npm, 'src/generated/stream-tags.mjs'), streamTags());
  if (existsSync(join(npm, 'dist/etpack.wasm'))) put(join(npm, 'dist/etpack-wasm.inline.mjs'), inlineWasm());
  if (existsSync(join(npm, 'dist/etpack.mjs'))) buildCli(npm);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  generate();
  console.log('gen-package: wrote npm/types/, npm/src/scalar-type.mjs, npm/src/generated/, npm/dist/etpack-wasm.inline.mjs, npm/dist/cli/, npm/README.md, npm/LICENSE, npm/examples/');
}
