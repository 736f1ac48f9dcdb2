import { COPY_DATA } from "../src/copy-binary.js";

/** One CopyData protocol message holding `data`. */
export function frame(data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = COPY_DATA;
  header.writeInt32BE(data.length + 4, 1);
  return Buffer.concat([header, data]);
}

/** The data of consecutive CopyData messages; throws on any other message. */
export function unframe(messages: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let pos = 0; pos < messages.length; ) {
    if (messages[pos] !== COPY_DATA) throw new Error(`a message of type ${messages[pos]} at ${pos}`);
    const length = messages.readInt32BE(pos + 1);
    parts.push(messages.subarray(pos + 5, pos + 1 + length));
    pos += 1 + length;
  }
  return Buffer.concat(parts);
}
