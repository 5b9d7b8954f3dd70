// serializeForExecutorch and serializePteBinary: upstream's
// serialize_for_executorch / serialize_pte_binary (exir/_serialize): a
// program (object or JSON text) + constants + named data -> .pte (and .ptd)
// files.
import { invalidArgument, markCallerError } from '../errors.mjs';
import {
  encodeRequest, programStream, pteConfigToCore, serializerPayloadFromCore, setOwn, replyJson,
} from '../marshal.mjs';
import { storeRequest } from '../classes/named-data-store.mjs';
import { deliver, outputOptions } from '../outputs.mjs';

// The emitter's byte lists (mutable data, external constants) as references.
function emitterRequest(emitter, scope) {
  const request = {};
  const mutable = emitter.mutableData ?? emitter.mutable_data ?? null;
  if (mutable !== null) {
    if (!Array.isArray(mutable)) throw invalidArgument('mutableData must be an array of byte arrays or null');
    request.mutable_data = mutable.map((b, i) => scope.data(b?.storage ?? b, `mutableData[${i}]`));
  }
  const map = emitter.externalConstantMap ?? emitter.external_constant_map ?? {};
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw invalidArgument('externalConstantMap must be an object');
  request.external_constant_map = map;
  const buffers = emitter.externalConstantBuffer ?? emitter.external_constant_buffer ?? [];
  if (!Array.isArray(buffers)) throw invalidArgument('externalConstantBuffer must be an array');
  request.external_constant_buffer = buffers.map((b, i) => scope.data(b, `externalConstantBuffer[${i}]`));
  return request;
}

// The program into the heap for a serialize call: JSON text as it is, an
// object as the value stream (marshal/program-stream.mjs), which the
// request names.
function putProgram(program, scope, heap, request) {
  if (typeof program === 'string') return heap.putText(program);
  request.program_form = 'stream';
  return heap.putProgram(programStream(program, scope));
}

// A caller's data serializer (an object with serialize(payload)) as the
// callback the core makes: payload JSON in, the reference of its result out
// (errors as {error}: nothing may throw through wasm frames).
function customSerializer(core, dataSerializer, scope) {
  return (payloadJson) => {
    try {
      const payload = serializerPayloadFromCore(core.module, core.sources, payloadJson);
      let result;
      try {
        result = dataSerializer.serialize(payload);
      } catch (e) {
        throw markCallerError(e);
      }
      return encodeRequest(scope.data(result, 'dataSerializer.serialize() result'));
    } catch (e) {
      return encodeRequest({ error: String(e?.message ?? e) });
    }
  };
}

export function serializeForExecutorch(core, emitterOutput, config = {}, dataSerializer = undefined, namedDataStore = null, options = {}) {
  if (!emitterOutput || typeof emitterOutput !== 'object') throw invalidArgument('emitterOutput must be an object');
  const delivery = outputOptions(options, 'options');
  return core.withScope((scope, heap) => {
    const request = emitterRequest(emitterOutput, scope);
    request.config = pteConfigToCore(config ?? {});
    request.store = storeRequest(core, namedDataStore, scope, 'namedDataStore');
    let serializeData;
    if (dataSerializer === undefined || dataSerializer === null) {
      request.data_serializer_config = { segment_alignment: 128 };
    } else if (dataSerializer instanceof core.classes.FlatTensorSerializer) {
      request.data_serializer_config = { segment_alignment: dataSerializer.config.segmentAlignment };
    } else if (typeof dataSerializer === 'object' && typeof dataSerializer.serialize === 'function') {
      request.custom_serializer = true;
      serializeData = customSerializer(core, dataSerializer, scope);
    } else {
      throw invalidArgument('dataSerializer must be a FlatTensorSerializer or an object with serialize(payload)');
    }
    const text = putProgram(emitterOutput.program, scope, heap, request);
    return core.run(() => core.module.serializeForExecutorch(text.ptr, text.len, encodeRequest(request), core.host({ serializeData })), (out) => {
      const tags = replyJson(out).ptd_tags;
      const [pte, ...files] = deliver(core, out, delivery);
      const ptd = {};
      tags.forEach((tag, i) => setOwn(ptd, tag, files[i]));
      return { pte, ptd };
    });
  });
}

// `extractOnly` (internal: pteWithWeights): with extractDelegateSegments,
// per delegate in execution-plan order, whether it goes to a segment.
export function serializePteBinary(core, pteFile, config = {}, options = {}, extractOnly = null) {
  if (!pteFile || typeof pteFile !== 'object') throw invalidArgument('serializePteBinary takes { program, mutableData, namedData }');
  const delivery = outputOptions(options, 'options');
  return core.withScope((scope, heap) => {
    const request = emitterRequest({ mutableData: pteFile.mutableData ?? pteFile.mutable_data ?? null }, scope);
    request.config = pteConfigToCore(config ?? {}, false);
    if (extractOnly) request.config.extract_only = extractOnly;
    request.named_data = storeRequest(core, pteFile.namedData ?? pteFile.named_data ?? null, scope, 'namedData');
    const text = putProgram(pteFile.program, scope, heap, request);
    return core.run(() => core.module.serializePteBinary(text.ptr, text.len, encodeRequest(request), core.host()),
      (out) => deliver(core, out, delivery)[0]);
  });
}
