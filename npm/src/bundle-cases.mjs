// The safetensors naming of BundledProgram test cases, read side: shared by
// et.testCasesFromSafetensors (ops/bundled.mjs) and the CLI (cli/bundled.mjs
// documents the naming and writes it back in unbundle).
export const VALUE_NAME = /^(.+)\.(\d+)\.(input|output)\.(\d+)$/;

const contiguous = (rank) => Array.from({ length: rank }, (_, i) => i);

// A metadata value ("Int 5", ...) as a bundle value, or an Error message.
export function scalarValue(text, name) {
  const m = /^(Int|Double|Bool|None)(?: (.*))?$/s.exec(text);
  if (!m) throw new Error(`metadata ${name}: "${text}" is none of "Int N", "Double X", "Bool true|false", "None"`);
  const [, type, arg] = m;
  if (type === 'None') return { val_type: null, val: null };
  if (type === 'Int') {
    if (!/^-?\d+$/.test(arg ?? '')) throw new Error(`metadata ${name}: "${arg}" is not an integer`);
    const v = BigInt(arg);
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new Error(`metadata ${name}: ${arg} does not fit int64`);
    return { val_type: 'Int', val: { int_val: Number.isSafeInteger(Number(v)) ? Number(v) : v } };
  }
  if (type === 'Bool') {
    if (arg !== 'true' && arg !== 'false') throw new Error(`metadata ${name}: "${arg}" is not true or false`);
    return { val_type: 'Bool', val: { bool_val: arg === 'true' } };
  }
  const d = arg === 'NaN' ? NaN : Number(arg);
  if (arg === undefined || arg.trim() === '' || (Number.isNaN(d) && arg !== 'NaN')) throw new Error(`metadata ${name}: "${arg}" is not a number`);
  return { val_type: 'Double', val: { double_val: d } };
}

// A tensor of a safetensors file (as the core's header reader gives it,
// with its ExecuTorch scalar type or null) as a bundle value.
export function tensorValue(tensor, bytes, dimOrderText, name) {
  const scalarType = tensor.scalarType;
  if (!Number.isInteger(scalarType)) throw new Error(`tensor ${name}: dtype ${tensor.dtype} has no ExecuTorch scalar type`);
  const sizes = tensor.shape.map(Number);
  let dimOrder = contiguous(sizes.length);
  if (dimOrderText !== undefined) {
    try {
      dimOrder = JSON.parse(dimOrderText);
    } catch {
      throw new Error(`metadata ${name}.dim_order: "${dimOrderText}" is not a JSON list`);
    }
  }
  return { val_type: 'Tensor', val: { scalar_type: scalarType, sizes, dim_order: dimOrder, data: bytes } };
}
