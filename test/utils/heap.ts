import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Importing this module exposes the collector to the suite: its memory bounds are read after gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One mebibyte, for heap bounds. */
export const MIB = 1024 * 1024;

/** The heap after full collections, once the event loop has let go of what it held. */
export async function heapAfterGc(): Promise<number> {
  for (let round = 0; round < 4; round++) {
    await new Promise((wake) => setImmediate(wake));
    gc();
  }
  return process.memoryUsage().heapUsed;
}
