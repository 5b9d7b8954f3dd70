// serializeBundledProgram and deserializeBundledProgram: BundledProgram
// (.bpte) files, byte for byte as upstream's
// devtools/bundled_program/serialize writes them (src/ops/bundled_program.h).
// A bundle is {version, program, method_test_suites: [{method_name,
// test_cases: [{inputs, expected_outputs}]}]}; a value {val_type: 'Tensor' |
// 'Int' | 'Double' | 'Bool' | null, val}; a tensor {scalar_type, sizes,
// dim_order, data}. `program` and `data` are byte arrays (or files, Blobs,
// Artifacts); int64 values may be BigInts, and come back as BigInts beyond
// 2^53, as programs do.
import { EtpackError, invalidArgument } from '../errors.mjs';
import { encodeRequest, markedReply, programPieces } from '../marshal.mjs';
import { fileRequest, openPath } from '../files-in.mjs';
import { deliver, outputOptions } from '../outputs.mjs';
import { readSafetensorsHeader } from '../safetensors.mjs';
import { entryOf } from '../sources.mjs';
import { assembleSuites, parseValueName, scalarValue, tensorValue } from '../bundle-cases.mjs';

export function serializeBundledProgram(core, bundle, options = {}) {
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    throw invalidArgument('serializeBundledProgram takes { version, program, method_test_suites }');
  }
  const delivery = outputOptions(options, 'options');
  return core.withScope((scope, heap) => {
    // The same JSON text a program object becomes: byte fields by reference,
    // special numbers (NaN, ±Infinity, -0) as bare tokens, BigInts as digits.
    const text = heap.putText(programPieces(bundle, scope));
    return core.run(() => core.module.bundledSerialize(text.ptr, text.len, core.host()),
      (out) => deliver(core, out, delivery)[0]);
  });
}

// The core writes a Double's infinities as upstream's program JSON does
// ("inf", "-inf": exir/schema.py); a bundle's values are Numbers.
function numericDoubles(bundle) {
  for (const suite of bundle.method_test_suites ?? []) {
    for (const testCase of suite?.test_cases ?? []) {
      for (const value of [...(testCase?.inputs ?? []), ...(testCase?.expected_outputs ?? [])]) {
        const v = value?.val_type === 'Double' ? value.val : null;
        if (v && typeof v.double_val === 'string') v.double_val = v.double_val === '-inf' ? -Infinity : Infinity;
      }
    }
  }
  return bundle;
}

// A path stays open while the call runs; the bundle's byte arrays are
// copies (or views of the caller's own bytes when `data` is bytes).
export function deserializeBundledProgram(core, data) {
  const opened = [];
  data = openPath(core, data, opened);
  try {
    return core.withScope((scope, heap) => {
      const request = encodeRequest(fileRequest(core, data, 'bpte', scope, heap, 'data'));
      return core.run(() => core.module.bundledDeserialize(request, core.host()),
        (out) => numericDoubles(markedReply(core.module, core.sources, out)));
    });
  } finally {
    for (const f of opened) f.close();
  }
}

// The head of a safetensors file holding `tensors` ([{name, dtype, shape,
// size}], bytes back to back in that order) and `metadata` ([[key,
// value]]), as the core writes it (src/encode/safetensors_writer.h): for
// the CLI's unbundle, which appends the tensors' bytes.
export function safetensorsHead(core, tensors, metadata) {
  return core.withScope(() => core.run(
    () => core.module.bundledSafetensorsHead(encodeRequest({ tensors, metadata })),
    (out) => deliver(core, out, { output: 'bytes', onProgress: null })[0]));
}

const quoted = (text) => JSON.stringify(String(text));
const badCases = (message) => new EtpackError('INVALID_INPUT', message);

// testCasesFromSafetensors(files, { names }): the test cases held by
// safetensors files (naming: ../bundle-cases.mjs, documented in
// cli/bundled.mjs) as { version, method_test_suites }, ready for
// serializeBundledProgram({ ...cases, program }). `files` are bytes, Blobs
// (Files), file sources or Artifacts; each header is read by the core's
// safetensors reader (the one weights use). `names` (else a File's name)
// name the files in errors. Refusals are INVALID_INPUT (the naming) or the
// reader's SAFETENSORS_* codes.
export async function testCasesFromSafetensors(et, files, options = {}) {
  if (!Array.isArray(files)) throw invalidArgument('testCasesFromSafetensors takes an array of safetensors files');
  if (options === null || typeof options !== 'object') throw invalidArgument('testCasesFromSafetensors options must be an object');
  const names = options.names ?? [];
  if (!Array.isArray(names)) throw invalidArgument('options.names must be an array of strings');
  // Every name once across all files: a tensor, a metadata value, a
  // dim_order or a bundle.* entry given twice (or metadata over a tensor's
  // name) is refused, naming both places.
  const given = new Map();  // name -> where ("tensor in FILE" / "metadata of FILE")
  const claim = (name, where) => {
    if (given.has(name)) throw badCases(`${quoted(name)} is given twice (${given.get(name)}, ${where})`);
    given.set(name, where);
  };
  const headers = [];
  let headerBytes = 0;
  for (let f = 0; f < files.length; ++f) {
    const file = String(names[f] ?? (typeof files[f]?.name === 'string' ? files[f].name : `safetensors file ${f}`));
    const entry = entryOf(files[f], `files[${f}]`);
    const header = await readSafetensorsHeader(entry, file, et);
    headerBytes += Number(header.headerSize);
    headers.push({ file, entry, header });
    for (const name of header.tensors.keys()) claim(name, `tensor in ${quoted(file)}`);
  }
  const values = new Map();  // name -> { parsed, value: { scalar | tensor + entry, file } }
  const dimOrders = new Map();
  const meta = { version: undefined, suites: undefined };
  const parse = (name, file) => {
    try {
      return parseValueName(name);
    } catch (e) {
      throw badCases(`${file}: ${e.message}`);
    }
  };
  for (const { file, entry, header } of headers) {
    for (const [key, text] of header.metadata) {
      claim(key, `metadata of ${quoted(file)}`);
      if (key === 'bundle.version') meta.version = text;
      else if (key === 'bundle.suites') meta.suites = { text, file };
      else if (key.startsWith('bundle.')) throw badCases(`${file}: metadata ${quoted(key)} is none of bundle.version, bundle.suites`);
      else if (key.endsWith('.dim_order')) dimOrders.set(key.slice(0, -'.dim_order'.length), { text, file });
      else {
        const parsed = parse(key, file);
        if (parsed) values.set(key, { parsed, scalar: text, file });
        // other metadata (a writer's "format": "pt") is not ours: ignored
      }
    }
    for (const [name, tensor] of header.tensors) {
      const parsed = parse(name, file);
      if (!parsed) throw badCases(`${file}: tensor ${quoted(name)} is not named METHOD.CASE.input.I or METHOD.CASE.output.I`);
      values.set(name, { parsed, tensor, entry, file });
    }
  }
  for (const [name, { file }] of dimOrders) {
    const v = values.get(name);
    if (!v || !v.tensor) throw badCases(`${file}: metadata ${quoted(`${name}.dim_order`)} is for no tensor value (${v ? 'that value is metadata' : 'no value has that name'})`);
  }
  // Claimed counts are checked against the values before any case is made
  // (assembleSuites); tensor bytes are read only then.
  let methodTestSuites;
  try {
    methodTestSuites = assembleSuites(new Map([...values].map(([name, v]) => [name, { parsed: v.parsed, value: v }])), meta.suites?.text, headerBytes);
  } catch (e) {
    throw badCases(meta.suites && /bundle\.suites/.test(e.message) ? `${meta.suites.file}: ${e.message}` : e.message);
  }
  for (const suite of methodTestSuites) {
    for (const testCase of suite.test_cases) {
      for (const list of [testCase.inputs, testCase.expected_outputs]) {
        for (let k = 0; k < list.length; ++k) list[k] = await caseValue(list[k], dimOrders);
      }
    }
  }
  let version = 0;
  if (meta.version !== undefined) {
    version = /^(0|[1-9][0-9]{0,9})$/.test(meta.version) ? Number(meta.version) : NaN;
    if (!(version <= 0xFFFFFFFF)) throw badCases(`metadata bundle.version ${quoted(meta.version)} is not a uint32 (canonical decimal)`);
  }
  return { version, method_test_suites: methodTestSuites };
}

// A value as the bundle holds it. Each tensor's bytes are read once into
// memory here (test cases are small; a view, no copy, when the file is
// bytes); the core then copies them once, into the bundle's flatbuffer.
async function caseValue(v, dimOrders) {
  const name = `${v.parsed.method}.${v.parsed.testCase}.${v.parsed.kind}.${v.parsed.index}`;
  try {
    return v.tensor
      ? tensorValue(v.tensor, await v.entry.read(Number(v.tensor.offset), Number(v.tensor.size)), dimOrders.get(name)?.text, name)
      : scalarValue(v.scalar, name);
  } catch (e) {
    if (e instanceof EtpackError) throw e;
    throw badCases(`${v.file}: ${e.message}`);
  }
}
