/** Whether this machine stores a number's low bytes first: typed arrays then are the wire formats' own bytes. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
