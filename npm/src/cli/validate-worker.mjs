// A worker thread of `validate --jobs N`: its own core, models validated one
// at a time as the main thread hands them over (validate-run.mjs).
import { parentPort, workerData } from 'node:worker_threads';
import init from '../../index.node.mjs';
import { validateModel } from './validate-run.mjs';

const et = await init();
parentPort.on('message', async (message) => {
  if (message === null) {
    parentPort.close();
    return;
  }
  parentPort.postMessage({ i: message.i, result: await validateModel(et, message.model, workerData.options) });
});
parentPort.postMessage({ ready: true });
