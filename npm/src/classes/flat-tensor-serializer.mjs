// FlatTensorSerializer: upstream's .ptd data serializer (flat_tensor),
// serialize = payload -> .ptd, deserialize = .ptd -> payload.
import { invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions } from '../options.mjs';
import { encodeRequest, entriesFromCore, entriesToCore, markedReply } from '../marshal.mjs';
import { fileRequest } from '../files-in.mjs';
import { deliver, outputOptions } from '../outputs.mjs';

export function defineFlatTensorSerializer(core) {
  class FlatTensorSerializer {
    constructor(config = {}) {
      const { segmentAlignment = 128 } = checkOptions(config, SPECS.flatTensorConfig, 'config');
      this.config = { segmentAlignment };
    }

    serialize(payload, options = {}) {
      if (!payload || typeof payload !== 'object' || !Array.isArray(payload.buffers)) throw invalidArgument('payload must have a buffers array');
      const delivery = outputOptions(options, 'options');
      return core.withScope((scope) => {
        const request = {
          buffers: payload.buffers.map((b, i) => scope.data(b, `payload.buffers[${i}]`)),
          named_data: entriesToCore(payload.namedData ?? payload.named_data ?? {}, 'payload.namedData'),
          config: { segment_alignment: this.config.segmentAlignment },
        };
        return core.run(() => core.module.ptdSerialize(encodeRequest(request), core.host()), (out) => deliver(core, out, delivery)[0]);
      });
    }

    deserialize(data) {
      return core.withScope((scope, heap) => {
        const request = encodeRequest(fileRequest(core, data, 'ptd', scope, heap, 'data'));
        return core.run(() => core.module.ptdDeserialize(request, core.host()), (out) => {
          const reply = markedReply(core.module, core.sources, out);
          return { buffers: reply.buffers, namedData: entriesFromCore(reply.named_data) };
        });
      });
    }
  }
  core.guardMethods(FlatTensorSerializer, ['serialize', 'deserialize']);
  return FlatTensorSerializer;
}
