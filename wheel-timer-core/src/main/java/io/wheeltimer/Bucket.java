package io.wheeltimer;

import io.wheeltimer.TimingWheel.Entry;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A bucket of a {@link TimingWheel}: an array of entries, not a linked list, so that a walk over a
 * bucket whose entries lie scattered in memory issues its loads in parallel instead of one cache
 * miss after another. An entry knows its slot, so removal is O(1): the slot is cleared, and the
 * array compacts, keeping the order, when half its slots are cleared. A bucket keeps its bit in the
 * occupancy bitmap of its level up to date. NOT thread safe: owned by its wheel.
 */
final class Bucket {

    private static final Entry[] NO_ENTRIES = {};
    /** An emptied bucket keeps an array up to this long for reuse; a longer one is let go. */
    private static final int KEPT_CAPACITY = 1024;

    final int level;
    final int index;
    /** The occupancy bitmap of the array this bucket belongs to (it moves with it, see staging). */
    final long[] bits;

    Entry[] entries = NO_ENTRIES;
    /** Slots in use, cleared ones (removed entries) included. */
    int size;
    /** Entries in the bucket. */
    int live;
    /** Changes whenever slots may move or the bucket is emptied (a pre-cascade cursor is then stale). */
    int generation;
    /** Level 0 only: a lower bound of the deadlines in this bucket ({@code Long.MAX_VALUE}: empty). */
    long minDeadlineNanos = Long.MAX_VALUE;

    Bucket(int level, int index, long[] bits) {
        this.level = level;
        this.index = index;
        this.bits = bits;
    }

    boolean isEmpty() {
        return live == 0;
    }

    /** Appends an entry, setting the bucket's bit if it was empty. */
    void add(Entry entry) {
        if (live == 0) {
            bits[index >>> 6] |= 1L << index;
        }
        if (size == entries.length) {
            if (size - live > size >> 1) {
                compact();
            } else {
                entries = Arrays.copyOf(entries, Math.max(8, size + (size >> 1))); // 1.5x: little slack
            }
        }
        entries[size] = entry;
        entry.bucket = this;
        entry.slot = size++;
        live++;
    }

    /** Clears the entry's slot; an emptied bucket gives up its bit and a big array. */
    void remove(Entry entry) {
        entries[entry.slot] = null;
        entry.bucket = null;
        if (--live == 0) {
            cleared();
        }
    }

    /** Every slot is clear (the last entry was removed or moved out): the bucket starts over. */
    void cleared() {
        size = 0;
        generation++;
        minDeadlineNanos = Long.MAX_VALUE;
        emptied();
    }

    /** Closes the gaps of removed entries, keeping the order. */
    private void compact() {
        Entry[] a = entries;
        int k = 0;
        for (int i = 0; i < size; i++) {
            Entry e = a[i];
            if (e != null) {
                e.slot = k;
                a[k++] = e;
            }
        }
        Arrays.fill(a, k, size, null);
        size = k;
        generation++;
    }

    /**
     * Takes the entries due by {@code boundaryNanos} into {@code out} (as long as {@link #size}) in
     * one pass, compacting those left (a later round, flat layout) in place.
     *
     * @return how many it took
     */
    int takeDue(long boundaryNanos, Entry[] out) {
        long minNanos = Long.MAX_VALUE;
        int n = size;
        int count = 0;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Entry e = entries[i];
            if (e == null) {
                continue; // removed
            }
            if (e.deadlineNanos <= boundaryNanos) {
                e.bucket = null;
                out[count++] = e;
            } else {
                minNanos = Math.min(minNanos, e.deadlineNanos); // a later round (flat layout)
                e.slot = kept;
                entries[kept++] = e;
            }
        }
        Arrays.fill(entries, kept, n, null);
        size = kept;
        live = kept;
        minDeadlineNanos = minNanos;
        if (kept == 0) {
            emptied();
        }
        return count;
    }

    /** Empties the bucket first, then hands its entries over, so the action may re-place them. */
    void drain(Consumer<? super Entry> action) {
        if (isEmpty()) {
            return;
        }
        Entry[] taken = entries;
        int n = size;
        entries = NO_ENTRIES;
        size = 0;
        live = 0;
        generation++;
        minDeadlineNanos = Long.MAX_VALUE;
        clearOccupied();
        for (int i = 0; i < n; i++) {
            Entry e = taken[i];
            if (e == null) {
                continue;
            }
            taken[i] = null;
            e.bucket = null;
            action.accept(e);
        }
        if (isEmpty() && taken.length <= KEPT_CAPACITY) {
            entries = taken; // all slots are null again: reuse it
        }
    }

    /** The bucket holds nothing any more: its bit is cleared, and a big array let go. */
    void emptied() {
        clearOccupied();
        if (entries.length > KEPT_CAPACITY) {
            entries = NO_ENTRIES;
        }
    }

    private void clearOccupied() {
        bits[index >>> 6] &= ~(1L << index);
    }

    /** Visits the entries, in slot order. */
    void forEach(Consumer<? super Entry> action) {
        for (int i = 0, n = size; i < n; i++) {
            if (entries[i] != null) {
                action.accept(entries[i]);
            }
        }
    }
}
