/**
 * A set of numbers in one table of doubles (open addressing, linear probing), compared as a Set
 * compares them (NaN equals NaN, -0 equals 0). A Set of 5M small integers takes 160 MB of heap;
 * this takes 8 bytes a slot, 4 to 8 slots for 3 numbers (64 MB for 5M; for a moment twice as much
 * while it grows). Nor does it stop at V8's limit for a Set, 2^24 entries.
 */
export class NumberSet {
  /** Empty slots hold NaN; a NaN member is kept in `nan` instead. */
  private slots = emptySlots(1 << 10);
  private count = 0;
  private nan = false;

  get size(): number {
    return this.count + (this.nan ? 1 : 0);
  }

  has(value: number): boolean {
    if (Number.isNaN(value)) return this.nan;
    const { slots } = this;
    const mask = slots.length - 1;
    for (let i = hash(value) & mask; ; i = (i + 1) & mask) {
      const slot = slots[i] as number;
      if (slot === value) return true;
      if (Number.isNaN(slot)) return false;
    }
  }

  /** Adds `value`; returns false when it was a member already. */
  add(value: number): boolean {
    if (Number.isNaN(value)) {
      if (this.nan) return false;
      return (this.nan = true);
    }
    if ((this.count + 1) * 4 > this.slots.length * 3) this.grow();
    // -0 is stored as 0, so that a later 0 (or -0) finds it by the same hash.
    const key = value === 0 ? 0 : value;
    const { slots } = this;
    const mask = slots.length - 1;
    for (let i = hash(key) & mask; ; i = (i + 1) & mask) {
      const slot = slots[i] as number;
      if (slot === key) return false;
      if (Number.isNaN(slot)) {
        slots[i] = key;
        this.count++;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    const slots = emptySlots(old.length * 2);
    const mask = slots.length - 1;
    for (const value of old) {
      if (Number.isNaN(value)) continue;
      let i = hash(value) & mask;
      while (!Number.isNaN(slots[i] as number)) i = (i + 1) & mask;
      slots[i] = value;
    }
    this.slots = slots;
  }
}

function emptySlots(length: number): Float64Array {
  return new Float64Array(length).fill(Number.NaN);
}

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/**
 * A well-mixed 32-bit hash of a number (0 and -0 alike): integers straight, other doubles by both
 * halves of their bits, each mixed, so that keys differing only in the high bits of either half
 * (ids packed as `tenant * 2^32 + id`, multiples of large powers of two) spread as well as others.
 */
export function hash(value: number): number {
  if ((value | 0) === value) return mix(value);
  bits[0] = value;
  return mix((words[0] as number) ^ mix(words[1] as number));
}

/** MurmurHash3's finalizer: every input bit moves about half the output bits. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
