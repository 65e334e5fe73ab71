package io.wheeltimer;

import io.wheeltimer.TimingWheel.Entry;

/**
 * Hierarchical layout: the level-0 buckets of the next block of W ticks, filled ahead of time (a
 * bounded number of entries per call, {@link #fill}) from the level-1 bucket that would otherwise
 * cascade all at once when that block starts. When the wheel reaches the block's start, the staged
 * buckets become level 0 in O(1): {@link TimingWheel} swaps the arrays.
 *
 * <p>Invariant: every staged entry is due in the block starting at {@link #start()}, in the bucket
 * of its tick, in the order it had in its source bucket; entries scheduled into the source bucket
 * meanwhile stay there and cascade as before when the block starts. NOT thread safe: owned by its
 * wheel.
 */
final class StagedBlock {

    private final int wheelMask;
    /** The staged buckets; null until first used, then swapped with the wheel's level 0. */
    Bucket[] buckets;
    /** Their occupancy bitmap, swapped with them. */
    long[] bits;

    private long startTick = TimingWheel.NO_TICK;
    /** Where {@link #fill} goes on in its source bucket, valid while that bucket's generation holds. */
    private Bucket source;

    private int sourceGeneration;
    private int cursor;

    StagedBlock(int wheelMask) {
        this.wheelMask = wheelMask;
    }

    /** The first tick of the staged block; {@link TimingWheel#NO_TICK} if none is staged. */
    long start() {
        return startTick;
    }

    /** Whether a block is staged and holds entries. */
    boolean hasEntries() {
        return startTick != TimingWheel.NO_TICK && hasBits();
    }

    /** Whether the staged buckets hold entries (whatever the block). */
    boolean hasBits() {
        if (bits == null) {
            return false;
        }
        for (long word : bits) {
            if (word != 0) {
                return true;
            }
        }
        return false;
    }

    /** The staged bucket for {@code tick}, or null. */
    Bucket bucketFor(long tick) {
        return buckets == null ? null : buckets[(int) tick & wheelMask];
    }

    /** The block started: nothing is staged any more (the wheel takes the buckets over). */
    void started() {
        startTick = TimingWheel.NO_TICK;
    }

    /**
     * Takes the wheel's previous level-0 arrays for the next staging (or fresh ones if it had none),
     * handing the staged ones back.
     */
    void exchange(Bucket[] oldLevel0, long[] oldBits) {
        if (oldLevel0 == null) {
            buckets = new Bucket[wheelMask + 1];
            bits = new long[(wheelMask >>> 6) + 1];
        } else {
            buckets = oldLevel0;
            bits = oldBits;
        }
    }

    /**
     * Moves up to {@code budget} entries of {@code from}, the level-1 bucket that cascades at {@code
     * blockStart}, front to back into the staged buckets for that block, clearing their slots as a
     * removal does (so the order within a tick is kept); an emptied {@code from} starts over.
     *
     * @return how many it moved
     */
    int fill(Bucket from, long blockStart, int budget, TimingWheel wheel) {
        if (buckets == null) {
            bits = new long[(wheelMask >>> 6) + 1];
            buckets = new Bucket[wheelMask + 1];
        }
        startTick = blockStart;
        if (from != source || from.generation != sourceGeneration) {
            source = from;
            sourceGeneration = from.generation;
            cursor = 0;
        }
        Entry[] entries = from.entries;
        int i = cursor;
        int moved = 0;
        while (moved < budget && i < from.size) {
            Entry e = entries[i];
            entries[i++] = null;
            if (e == null) {
                continue; // a removed entry's slot
            }
            from.live--;
            long dueTick = Math.max(wheel.tickOf(e.deadlineNanos), blockStart);
            int slot = (int) dueTick & wheelMask;
            Bucket target = buckets[slot];
            if (target == null) {
                target = new Bucket(0, slot, bits);
                buckets[slot] = target;
            }
            target.add(e);
            target.minDeadlineNanos = Math.min(target.minDeadlineNanos, e.deadlineNanos);
            moved++;
        }
        cursor = i;
        if (from.live == 0) {
            from.cleared();
        }
        return moved;
    }
}
