import { networkInterfaces } from 'node:os';

/**
 * An IPv4 address of this machine that is not loopback: a test listening there
 * plays a proxy or server on another host. Undefined on a machine with only
 * loopback, where such tests skip and say so.
 */
export const REMOTE_ADDRESS: string | undefined = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

export const NO_REMOTE_ADDRESS = 'this machine has no address besides loopback to play another host on';
