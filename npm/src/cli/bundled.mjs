// BundledProgram (.bpte) helpers of the CLI: the safetensors naming of test
// cases that `bundle` reads and `unbundle` writes, and inspect's text for a
// .bpte.
//
// Naming: a test case value is the tensor (or metadata entry)
//   METHOD.CASE.input.I   the I-th input of case CASE of METHOD's suite
//   METHOD.CASE.output.I  the I-th expected output
// (CASE and I decimal, from 0; METHOD may itself contain dots). Tensors
// are laid out contiguously unless metadata `NAME.dim_order` says otherwise
// ("[0, 2, 1]"). Values that are no tensor are metadata entries of that
// name: "Int 5", "Double 1.5" (a decimal, or NaN, Infinity, -Infinity, -0),
// "Bool true", "None"; nothing else (no hex, no trailing words). CASE and I
// are canonical decimals (no leading zeros); each name is given once across
// all files (a tensor and a metadata entry of one name clash); a
// NAME.dim_order needs a tensor NAME. METHOD may be empty (".0.input.0"). Metadata "bundle.version" (default 0) and
// "bundle.suites" ([[method, case count], ...]: the suites' order, and
// cases with no value at all) are optional; without them suites come in
// name order, each with as many cases as its highest CASE says.
import { printable, fmtBytes } from './format.mjs';
import { scalarSafetensorsDtype } from '../generated/safetensors-dtypes.mjs';
import { SCALAR_TYPES } from '../generated/scalar-types.mjs';

export { VALUE_NAME, scalarValue, tensorValue } from '../bundle-cases.mjs';

// Element sizes by ScalarType code: the table generated from the core's
// (src/model/scalar_types.def), the one dtype table of the package.
const ELEMENT_SIZE = [];
for (const t of Object.values(SCALAR_TYPES)) ELEMENT_SIZE[t.code] = t.elementSize;

// Bytes of a tensor (as a Number; null when the type is unknown or a size is
// not a safe non-negative integer).
export function tensorBytes(scalarType, sizes) {
  const element = ELEMENT_SIZE[Number(scalarType)];
  if (element === undefined || !Array.isArray(sizes)) return null;
  let total = BigInt(element);
  for (const s of sizes) {
    const n = BigInt(s);
    if (n < 0n) return null;
    total *= n;
  }
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : null;
}

export function valueName(method, testCase, kind, index) {
  return `${method}.${testCase}.${kind}.${index}`;
}

// A bundle value as a metadata value (the inverse of scalarValue).
export function scalarText(value) {
  if (value.val_type === null || value.val === null) return 'None';
  if (value.val_type === 'Int') return `Int ${value.val.int_val ?? 0}`;
  if (value.val_type === 'Bool') return `Bool ${Boolean(value.val.bool_val)}`;
  const d = value.val.double_val ?? 0;
  return `Double ${Object.is(d, -0) ? '-0' : String(d)}`;
}

// The safetensors dtype unbundle writes a tensor of `scalarType` as: the
// core's table (src/read/safetensors_dtypes.def, generated into JS).
export function dtypeOf(scalarType, name) {
  const dtype = scalarSafetensorsDtype(scalarType);
  if (dtype === undefined) throw new Error(`${name}: scalar type ${scalarType} has no safetensors dtype`);
  return dtype;
}

// [0, 1, ..., rank - 1] (what bundle writes when no dim_order is given).
export const isContiguous = (dimOrder, rank) => dimOrder.length === rank && dimOrder.every((d, i) => d === i);

// inspect's text for a .bpte: the bundle, then its program as inspect
// shows a .pte (formatPte).
export function formatBundled(path, s, formatPte) {
  const out = [`${printable(path)}: ExecuTorch bundled program (.bpte), ${fmtBytes(s.fileSize)}, identifier ${printable(s.identifier)}, version ${s.version}`];
  out.push(s.program ? `program: ${fmtBytes(s.program.size)} at offset ${s.program.offset}` : 'program: none');
  if (s.programError) out.push(`program cannot be read: ${s.programError.code}: ${printable(s.programError.message)}`);
  const value = (v) => (v.type === 'Tensor'
    ? `Tensor ${v.dtype ?? `scalar type ${v.scalarType}`} [${(v.shape ?? []).join(', ')}] (${v.dataSize} bytes)`
    : v.type === 'None' ? 'None' : `${v.type} ${Object.is(v.value, -0) ? '-0' : String(v.value)}`);
  out.push('', `Method test suites (${s.methodTestSuites.length})`);
  for (const suite of s.methodTestSuites) {
    out.push(`  ${suite.methodName === null ? '(unnamed)' : printable(suite.methodName)}: ${suite.testCases.length} test case(s)`);
    suite.testCases.slice(0, 40).forEach((c, i) => {
      out.push(`    case ${i}`);
      for (const v of c.inputs ?? []) out.push(`      in  ${printable(value(v))}`);
      for (const v of c.expectedOutputs ?? []) out.push(`      out ${printable(value(v))}`);
    });
    if (suite.testCases.length > 40) out.push(`    ... ${suite.testCases.length - 40} more case(s)`);
  }
  if (s.programSummary) out.push('', formatPte(`${path} (program)`, s.programSummary));
  return out.join('\n');
}
