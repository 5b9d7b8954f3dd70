// Named data and config shapes: the API's camelCase objects <-> the core's
// snake_case JSON (bindings/marshal.h), checked on the way in; buffers go
// by reference (refs.mjs), never as integer lists.
import { invalidArgument } from '../errors.mjs';
import { PTE_CONFIG, check, checkOptions, integerIn } from '../options.mjs';
import { heapCopy } from './heap.mjs';
import { setOwn } from './own.mjs';

export function layoutToCore(layout, what) {
  if (layout === null || layout === undefined) return null;
  if (typeof layout !== 'object') throw invalidArgument(`${what} must be an object or null`);
  const scalarType = layout.scalarType ?? layout.scalar_type;
  if (!Number.isInteger(scalarType)) throw invalidArgument(`${what}.scalarType must be an integer`);
  return {
    scalar_type: scalarType,
    sizes: integerList(layout.sizes ?? [], `${what}.sizes`),
    dim_order: integerList(layout.dimOrder ?? layout.dim_order ?? [], `${what}.dimOrder`),
  };
}

// An array-like of integers (Numbers or BigInts) -> Numbers, checked.
function integerList(list, what) {
  if (list === null || typeof list !== 'object' || typeof list.length !== 'number') throw invalidArgument(`${what} must be an array of integers`);
  return Array.from(list, (v, i) => integerIn(v, `${what}[${i}]`, -(2 ** 53) + 1, 2 ** 53 - 1));
}

export function layoutFromCore(layout) {
  if (!layout) return null;
  return { scalarType: layout.scalar_type, sizes: layout.sizes, dimOrder: layout.dim_order };
}

export function entriesToCore(entries, what) {
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) throw invalidArgument(`${what} must be an object`);
  const out = {};
  for (const key of Object.keys(entries)) {
    const e = entries[key];
    const where = `${what}[${JSON.stringify(key)}]`;
    if (e === null || typeof e !== 'object') throw invalidArgument(`${where} must be an object { bufferIndex, alignment?, tensorLayout? }`);
    const bufferIndex = integerIn(e.bufferIndex ?? e.buffer_index, `${where}.bufferIndex`, 0, 2 ** 32 - 1);
    const alignment = e.alignment === undefined ? 1 : check.alignment(e.alignment, `${where}.alignment`);
    setOwn(out, key, { buffer_index: bufferIndex, alignment, tensor_layout: layoutToCore(e.tensorLayout ?? e.tensor_layout, `${where}.tensorLayout`) });
  }
  return out;
}

export function entriesFromCore(entries) {
  const out = {};
  for (const key of Object.keys(entries)) {
    const e = entries[key];
    setOwn(out, key, { bufferIndex: e.buffer_index, alignment: e.alignment, tensorLayout: layoutFromCore(e.tensor_layout) });
  }
  return out;
}

// A store output ({buffers, pteData, externalData}) -> core JSON, buffers by reference.
export function storeOutputToCore(output, scope, what = 'namedDataStore') {
  if (!output || typeof output !== 'object' || !Array.isArray(output.buffers)) throw invalidArgument(`${what} must have a buffers array`);
  const externalData = output.externalData ?? output.external_data ?? {};
  if (externalData === null || typeof externalData !== 'object') throw invalidArgument(`${what}.externalData must be an object`);
  const external = {};
  for (const tag of Object.keys(externalData)) {
    setOwn(external, tag, entriesToCore(externalData[tag], `${what}.externalData[${JSON.stringify(tag)}]`));
  }
  return {
    buffers: output.buffers.map((b, i) => scope.data(b, `${what}.buffers[${i}]`)),
    pte_data: entriesToCore(output.pteData ?? output.pte_data ?? {}, `${what}.pteData`),
    external_data: external,
  };
}

export function storeOutputFromCore(json) {
  const external = {};
  for (const tag of Object.keys(json.external_data)) setOwn(external, tag, entriesFromCore(json.external_data[tag]));
  return { buffers: json.buffers, pteData: entriesFromCore(json.pte_data), externalData: external };
}

// A default of null leaves the choice to the core (repack: the input's).
export function pteConfigToCore(config = {}, defaultExtract = true, what = 'config', spec = PTE_CONFIG, defaultSegmentAlignment = 128) {
  const c = checkOptions(config, spec, what);
  return {
    extract_delegate_segments: c.extractDelegateSegments ?? defaultExtract,
    segment_alignment: c.segmentAlignment ?? defaultSegmentAlignment,
    constant_tensor_alignment: c.constantTensorAlignment ?? null,
    delegate_alignment: c.delegateAlignment ?? null,
  };
}

// The payload the core hands a custom data serializer (JSON text): its
// buffers as byte arrays (views of the caller's sources where possible, else
// a copy: the heap's bytes must outlive the callback) and its named data in
// the API's shape.
export function serializerPayloadFromCore(module, sources, payloadJson) {
  const payload = JSON.parse(payloadJson);
  const buffers = payload.buffers.map((ref) => {
    if (ref.src === undefined) return heapCopy(module, ref.ptr, ref.len);
    const entry = sources.get(ref.src);
    const view = entry.view(ref.offset ?? 0, ref.size);
    if (view) return view;
    const copy = new Uint8Array(ref.size);  // not viewable (a file): read once into a new array
    entry.copyTo(copy, 0, ref.offset ?? 0, ref.size);
    return copy;
  });
  return { buffers, namedData: entriesFromCore(payload.named_data) };
}
