package io.wheeltimer;

import java.util.function.Consumer;

/**
 * The buckets of a {@link TimingWheel}, level by level, with one occupancy bitmap per level: where
 * an entry due at a tick belongs, and where the next event is, found from the bitmaps rather than
 * by visiting buckets. With {@code W = 2^wheelBits} buckets a level, a tick's digit at level {@code
 * l} is bits {@code [l * wheelBits, (l + 1) * wheelBits)} of it. It holds no time but the tick it
 * is asked about. NOT thread safe: owned by its wheel.
 */
final class WheelLevels {

    final int wheelBits;
    final int wheelMask;
    final boolean hierarchical;
    private final long tickNanos;
    /** buckets[level][index]; a level's array and each bucket are created on first use. */
    private final Bucket[][] buckets;
    /** occupied[level]: one bit per non-empty bucket. */
    private final long[][] occupied;

    WheelLevels(long tickNanos, int ticksPerWheel, boolean hierarchical) {
        this.tickNanos = tickNanos;
        this.wheelBits = Integer.numberOfTrailingZeros(ticksPerWheel);
        this.wheelMask = ticksPerWheel - 1;
        this.hierarchical = hierarchical && wheelBits > 0;
        int levelCount = this.hierarchical ? (Long.SIZE - 1 + wheelBits - 1) / wheelBits : 1;
        this.buckets = new Bucket[levelCount][];
        this.occupied = new long[levelCount][];
    }

    int count() {
        return buckets.length;
    }

    /** First tick whose boundary is at or after {@code deadlineNanos}. */
    long tickOf(long deadlineNanos) {
        if (deadlineNanos <= 0) {
            return 0;
        }
        long ticks = deadlineNanos / tickNanos;
        return deadlineNanos % tickNanos == 0 ? ticks : ticks + 1;
    }

    /** The bucket at {@code index} of {@code level}, or null if it was never used. */
    Bucket existing(int level, int index) {
        Bucket[] array = buckets[level];
        return array == null ? null : array[index];
    }

    /** The bucket at {@code index} of {@code level}, made on first use. */
    Bucket bucket(int level, int index) {
        Bucket[] array = buckets[level];
        if (array == null) {
            array = new Bucket[wheelMask + 1];
            buckets[level] = array;
            occupied[level] = new long[(wheelMask >>> 6) + 1];
        }
        Bucket bucket = array[index];
        if (bucket == null) {
            bucket = new Bucket(level, index, occupied[level]);
            array[index] = bucket;
        }
        return bucket;
    }

    /** The buckets of {@code level}, or null if none was made. */
    Bucket[] level(int level) {
        return buckets[level];
    }

    /** The occupancy bitmap of {@code level}, or null if none of its buckets was made. */
    long[] bits(int level) {
        return occupied[level];
    }

    /** Level 0 becomes {@code level0}, whose buckets share {@code bits} (a staged block starts). */
    void replaceLevel0(Bucket[] level0, long[] bits) {
        buckets[0] = level0;
        occupied[0] = bits;
    }

    /** Visits every bucket made so far. */
    void forEachBucket(Consumer<Bucket> action) {
        for (Bucket[] level : buckets) {
            forEach(level, action);
        }
    }

    static void forEach(Bucket[] array, Consumer<Bucket> action) {
        if (array != null) {
            for (Bucket bucket : array) {
                if (bucket != null) {
                    action.accept(bucket);
                }
            }
        }
    }

    /** The level of the highest bit in which {@code dueTick} and {@code currentTick} differ. */
    int levelFor(long dueTick, long currentTick) {
        if (!hierarchical) {
            return 0;
        }
        long diff = dueTick ^ currentTick;
        return diff == 0 ? 0 : (Long.SIZE - 1 - Long.numberOfLeadingZeros(diff)) / wheelBits;
    }

    int digit(long tick, int level) {
        return (int) (tick >>> (level * wheelBits)) & wheelMask;
    }

    static long clearLowBits(long value, int bits) {
        return bits >= Long.SIZE ? 0 : (value >>> bits) << bits;
    }

    /**
     * Level 0: the soonest tick after {@code currentTick} at which some bucket has an entry due. A
     * bucket at offset {@code k} from the next tick cannot fire before {@code currentTick + 1 + k},
     * so the circular scan stops as soon as that bound passes the best found.
     */
    long nextLevel0Event(long currentTick) {
        long[] bits = occupied[0];
        if (bits == null) {
            return TimingWheel.NO_TICK;
        }
        long first = currentTick + 1;
        int start = (int) first & wheelMask;
        long best = TimingWheel.NO_TICK;
        // Buckets in the order the wheel reaches them: [start, W), then [0, start).
        for (int pass = 0; pass < 2; pass++) {
            int to = pass == 0 ? wheelMask + 1 : start;
            for (int index = nextSetBit(bits, pass == 0 ? start : 0, to);
                    index >= 0;
                    index = nextSetBit(bits, index + 1, to)) {
                long earliest = first + ((index - start) & wheelMask);
                if (earliest >= best) {
                    return best;
                }
                long base = Math.max(first, tickOf(buckets[0][index].minDeadlineNanos));
                best = Math.min(best, base + ((index - base) & wheelMask));
            }
        }
        return best;
    }

    /** Levels above 0: the start of the next non-empty bucket's span in the current block. */
    long nextCascade(int level, long currentTick) {
        long[] bits = occupied[level];
        if (bits == null) {
            return TimingWheel.NO_TICK;
        }
        int index = nextSetBit(bits, digit(currentTick, level) + 1, wheelMask + 1);
        if (index < 0) {
            return TimingWheel.NO_TICK;
        }
        int shift = level * wheelBits;
        return clearLowBits(currentTick, shift + wheelBits) | ((long) index << shift);
    }

    /** Index of the first set bit in {@code [from, to)}, or -1. */
    private static int nextSetBit(long[] bits, int from, int to) {
        if (from >= to) {
            return -1;
        }
        int word = from >>> 6;
        long w = bits[word] & (-1L << from);
        while (true) {
            if (w != 0) {
                int index = (word << 6) + Long.numberOfTrailingZeros(w);
                return index < to ? index : -1;
            }
            if (++word << 6 >= to) {
                return -1;
            }
            w = bits[word];
        }
    }
}
