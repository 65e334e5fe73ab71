package io.wheeltimer;

import java.util.function.Consumer;

/**
 * The timing wheel itself: buckets of entries indexed by tick. NOT thread safe: one thread (the
 * timer's worker) owns it. It owns no thread and reads no clock; time comes in as tick numbers
 * and deadlines as nanoseconds since the timer started, so it can be driven and tested step by step.
 * There is one way to move it on, {@link #advance}: bounded, and the same for the worker and the tests.
 *
 * <p>Firing rule, the same in both layouts: an entry whose deadline is {@code D} fires at the first
 * tick {@code t} after the tick that was current when it was scheduled with {@code t * tickNanos >= D}:
 * never early, and a deadline exactly on a tick boundary fires at that boundary.
 *
 * <p>Layout, with {@code W = 2^b} buckets per level:
 * <pre>
 *   level 0   W buckets of 1 tick       the current block of W ticks
 *   level 1   W buckets of W ticks      the current block of W^2 ticks
 *   level 2   W buckets of W^2 ticks    the current block of W^3 ticks
 *   ...       ceil(63 / b) levels in all, which together cover every non-negative long tick
 * </pre>
 * In the <em>hierarchical</em> layout an entry due at tick {@code d} (current tick {@code c}) sits at
 * the level of the highest bit in which {@code d} and {@code c} differ, in bucket
 * {@code (d >> level * b) & mask}. When the current tick reaches the start of a bucket's span, that
 * bucket cascades: its entries are placed again, now at lower levels. An entry is therefore touched
 * at most once per level on its way down, never once per rotation.
 *
 * <p>In the <em>flat</em> layout (Netty's) there is only level 0: an entry due more than {@code W}
 * ticks ahead waits in bucket {@code d & mask} and is looked at (its deadline compared) each time
 * the wheel passes that bucket, until its round comes.
 *
 * <p>Either way the wheel only visits ticks at which something expires or cascades: {@link
 * #nextEventTick()} finds the next one from per-level occupancy bitmaps and, for level 0, each
 * bucket's earliest deadline.
 */
final class TimingWheel {

    /** Returned by {@link #nextEventTick()} when nothing is scheduled. */
    static final long NO_TICK = Long.MAX_VALUE;

    /**
     * An element of a bucket: it knows its bucket and its slot there, so removal is O(1) (the slot
     * is cleared; the bucket compacts when half its slots are cleared, keeping the order). {@code bucket == null} means "not in the wheel". Subclassed by
     * the timer's timeout handle, so a pending timeout costs one object.
     */
    static class Entry {
        /** Nanoseconds since the timer started, >= 0. Set before {@link #schedule}; then fixed. */
        long deadline;

        Bucket bucket;
        int slot;
    }

    private static final Entry[] NO_ENTRIES = {};
    /** An emptied bucket keeps an array up to this long for reuse; a longer one is let go. */
    private static final int KEPT_CAPACITY = 1024;

    /**
     * A bucket: an array of entries, not a linked list, so that a walk over a bucket whose entries
     * lie scattered in memory issues its loads in parallel instead of one cache miss after another.
     */
    static final class Bucket {
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
        long minDeadline = Long.MAX_VALUE;

        Bucket(int level, int index, long[] bits) {
            this.level = level;
            this.index = index;
            this.bits = bits;
        }

        boolean isEmpty() {
            return live == 0;
        }

        void add(Entry entry) {
            if (size == entries.length) {
                if (size - live > size >> 1) {
                    compact();
                } else {
                    entries = java.util.Arrays.copyOf(entries, Math.max(8, size + (size >> 1))); // 1.5x: little slack
                }
            }
            entries[size] = entry;
            entry.bucket = this;
            entry.slot = size++;
            live++;
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
            java.util.Arrays.fill(a, k, size, null);
            size = k;
            generation++;
        }

        /** After the bucket was emptied: keeps a modest array for reuse, lets a big one go. */
        void trim() {
            if (entries.length > KEPT_CAPACITY) {
                entries = NO_ENTRIES;
            }
        }
    }

    private final long tickNanos;
    /** Ticks past this one can never be reached: their boundary does not fit in a long. */
    private final long maxTick;

    private final int wheelBits;
    private final int wheelMask;
    private final boolean hierarchical;
    /** levels[level][index]; a level's array and each bucket are created on first use. */
    private final Bucket[][] levels;
    /** occupied[level]: one bit per non-empty bucket. */
    private final long[][] occupied;

    private long currentTick;
    private long size;
    /** Entries placed in a bucket or compared against a tick: the wheel's work, for tests. */
    private long touches;
    /** Written by {@link #warm} only, and never read, so that its loads are not optimized away. */
    private long warmSink;
    /** A lower bound of the next event tick, valid while {@code eventHintValid}. */
    private long eventHint = NO_TICK;

    private boolean eventHintValid = true;
    /** Hierarchical layout: the next block's level 0, filled ahead by {@link #precascade}. */
    private final StagedBlock staged;
    /** The entries due at the tick being processed; reused from tick to tick. */
    private Entry[] batch = new Entry[64];

    /**
     * @param tickNanos length of a tick in nanoseconds, > 0
     * @param ticksPerWheel buckets per level, a power of two from 1 to 2^30
     * @param hierarchical whether far entries wait in overflow levels (with one bucket per level
     *     there is nothing to cascade, and the layout is flat)
     */
    TimingWheel(long tickNanos, int ticksPerWheel, boolean hierarchical) {
        if (tickNanos <= 0) {
            throw new IllegalArgumentException("tickNanos must be > 0, was " + tickNanos);
        }
        if (ticksPerWheel <= 0 || Integer.bitCount(ticksPerWheel) != 1) {
            throw new IllegalArgumentException(
                    "ticksPerWheel must be a power of two from 1 to 2^30, was " + ticksPerWheel);
        }
        this.tickNanos = tickNanos;
        this.maxTick = Long.MAX_VALUE / tickNanos;
        this.wheelBits = Integer.numberOfTrailingZeros(ticksPerWheel);
        this.wheelMask = ticksPerWheel - 1;
        this.hierarchical = hierarchical && wheelBits > 0;
        int levelCount = this.hierarchical ? (63 + wheelBits - 1) / wheelBits : 1;
        this.levels = new Bucket[levelCount][];
        this.occupied = new long[levelCount][];
        this.staged = new StagedBlock(wheelMask);
    }

    /** The last tick processed; entries due at or before it have fired. */
    long currentTick() {
        return currentTick;
    }

    /** Entries in the wheel. */
    long size() {
        return size;
    }

    /** The wheel's work so far: entries placed (also by a cascade) plus entries looked at in a bucket. */
    long touches() {
        return touches;
    }

    boolean isHierarchical() {
        return hierarchical;
    }

    /**
     * Adds an entry, due at the first tick after {@link #currentTick()} whose boundary is at or
     * after {@code entry.deadline}.
     *
     * @throws IllegalStateException if the entry is already in a wheel
     */
    void schedule(Entry entry) {
        if (entry.bucket != null) {
            throw new IllegalStateException("entry is already scheduled");
        }
        place(entry, Math.max(tickOf(entry.deadline), currentTick + 1));
        size++;
    }

    /**
     * Removes an entry before it fires.
     *
     * @return false if it was not in the wheel (fired, removed, or never scheduled)
     */
    boolean remove(Entry entry) {
        if (entry.bucket == null) {
            return false;
        }
        unlink(entry);
        size--;
        return true;
    }

    /**
     * What {@link #advance} hands each event tick to. The worker is the one implementation in
     * production; tests pass a lambda for {@link #expired}.
     */
    interface TickSink {
        /**
         * The wheel has moved to {@code tick} (its current tick now) and cascaded what starts
         * there; the entries due at it are taken next.
         */
        default void cascaded(long tick) {}

        /**
         * The entries due at {@code tick}, already removed from the wheel, in bucket order in {@code
         * due[0, count)}. The wheel clears those slots when this returns. It may read the wheel
         * ({@link #forEach}), not change it.
         *
         * @return whether to go on to the next event tick
         */
        boolean expired(long tick, Entry[] due, int count);
    }

    /**
     * Processes, in tick order, every tick up to and including {@code tick} at which something
     * expires or cascades, handing each to {@code sink}, until {@code limit} work is done (the
     * entries taken due plus one per tick; at least one tick is processed when one is due) or the
     * sink says stop. If it got through all of them, the current tick becomes {@code tick} (when
     * that is ahead): no event lies in between, so every invariant holds.
     *
     * @return {@link #nextEventTick()} afterwards: at or before {@code tick} if it stopped early
     */
    long advance(long tick, int limit, TickSink sink) {
        long work = 0;
        long t = nextEventTick();
        while (t <= tick && work < limit) {
            cascadeTo(t);
            sink.cascaded(t);
            int due = expireBucket(t);
            work += due + 1;
            boolean goOn = sink.expired(t, batch, due);
            java.util.Arrays.fill(batch, 0, due, null);
            t = nextEventTick();
            if (!goOn) {
                return t;
            }
        }
        if (t > tick && tick > currentTick) {
            currentTick = tick; // nextEventTick() is after it: the hint stays valid
        }
        return t;
    }

    /** Moves the current tick to {@code tick}, which is {@link #nextEventTick()}, and cascades what starts there. */
    private void cascadeTo(long tick) {
        currentTick = tick;
        eventHintValid = false;
        if (tick == staged.start()) {
            swapStaged();
        }
        for (int level = levels.length - 1; level > 0; level--) {
            if ((tick & ((1L << (level * wheelBits)) - 1)) == 0) {
                cascade(level, digit(tick, level));
            }
        }
    }

    /**
     * The earliest tick after {@link #currentTick()} at which an entry may expire or a bucket
     * cascades; {@link #NO_TICK} if the wheel is empty. It may be early (after a removal), never late.
     */
    long nextEventTick() {
        if (!eventHintValid) {
            long best = nextLevel0Event();
            for (int level = 1; level < levels.length; level++) {
                best = Math.min(best, nextCascade(level));
            }
            if (staged.hasEntries()) {
                best = Math.min(best, staged.start());
            }
            eventHint = best;
            eventHintValid = true;
        }
        return eventHint;
    }

    /** Visits every entry in the wheel, in no particular order. */
    void forEach(Consumer<? super Entry> action) {
        forEachBucketArray(staged.buckets, action);
        for (Bucket[] level : levels) {
            forEachBucketArray(level, action);
        }
    }

    private static void forEachBucketArray(Bucket[] level, Consumer<? super Entry> action) {
        if (level == null) {
            return;
        }
        for (Bucket bucket : level) {
            if (bucket == null) {
                continue;
            }
            Entry[] entries = bucket.entries;
            for (int i = 0, n = bucket.size; i < n; i++) {
                if (entries[i] != null) {
                    action.accept(entries[i]);
                }
            }
        }
    }

    /** Removes every entry, handing each to {@code removed}. */
    void clear(Consumer<? super Entry> removed) {
        if (staged.buckets != null) {
            for (Bucket bucket : staged.buckets) {
                if (bucket != null) {
                    drain(bucket, removed);
                }
            }
        }
        for (Bucket[] level : levels) {
            if (level == null) {
                continue;
            }
            for (Bucket bucket : level) {
                if (bucket != null) {
                    drain(bucket, removed);
                }
            }
        }
        size = 0;
        eventHint = NO_TICK;
        eventHintValid = true;
    }

    /**
     * Hierarchical layout: moves up to {@code budget} entries of the level-1 bucket that cascades at
     * the start of the next block into the staged level 0 for that block, so that its cascade does
     * not land on a single round. Entries scheduled meanwhile still go to that bucket; whatever is
     * left there when the block starts cascades as before.
     *
     * @return whether that bucket still holds entries (call again on the next round)
     */
    boolean precascade(int budget) {
        long blockStart = nextBlockStart();
        Bucket source = precascadeSource(blockStart);
        if (source == null) {
            return false;
        }
        touches += staged.fill(source, blockStart, budget, this);
        if (source.live == 0) {
            source.size = 0;
            source.generation++;
            clearOccupied(source);
            source.trim();
        }
        if (eventHintValid) {
            eventHint = Math.min(eventHint, blockStart);
        }
        return source.live > 0;
    }

    /**
     * Hierarchical layout: how many entries {@link #precascade} must move per tick from now on for
     * the next block's level-1 bucket to be empty when that block starts (rounded up), so that a
     * worker that bounds its pre-cascade by time still finishes it in time; 0 if nothing waits.
     */
    int precascadeRate() {
        long blockStart = nextBlockStart();
        Bucket source = precascadeSource(blockStart);
        if (source == null) {
            return 0;
        }
        long ticksLeft = Math.max(1, blockStart - currentTick);
        return (int) Math.min(Integer.MAX_VALUE, (source.live + ticksLeft - 1) / ticksLeft);
    }

    private long nextBlockStart() {
        return clearLowBits(currentTick, wheelBits) + (wheelMask + 1L);
    }

    /** The level-1 bucket that cascades at {@code blockStart}, if it holds anything to pre-cascade. */
    private Bucket precascadeSource(long blockStart) {
        if (levels.length < 2 || levels[1] == null) {
            return null;
        }
        int index = digit(blockStart, 1);
        if (blockStart > maxTick || blockStart < 0 || index == 0) {
            return null; // a new level-2 block starts there: its entries cascade through level 2
        }
        Bucket source = levels[1][index];
        return source == null || source.isEmpty() ? null : source;
    }

    /**
     * Reads the entries due from {@code tick} (after {@link #currentTick()}) over the next {@code
     * ticks} ticks, bucket by bucket in tick order: it passes over the first {@code skip} bucket
     * slots (read by an earlier call), reads at most {@code budget} more, and changes nothing. It
     * loads them, and the page-table entries that map them, into the caches before their deadline.
     * A bucket untouched for a long sleep is cold, and its entries lie wherever their producers
     * allocated them, so taking it due costs a cache miss and a TLB miss per entry. Entries still in
     * an overflow level are skipped: their cascade reads them.
     *
     * @return how many slots it read (removed entries' included); less than {@code budget} once
     *     there are no more
     */
    int warm(long tick, int ticks, int skip, int budget) {
        int toSkip = skip;
        int visited = 0;
        long sum = 0;
        long end = Math.min(tick + Math.min(ticks, wheelMask + 1L), maxTick + 1);
        for (long t = tick; t < end && visited < budget; t++) {
            boolean inStaged = staged.start() != NO_TICK && t >= staged.start();
            long blockStart = inStaged ? staged.start() : currentTick;
            if (hierarchical && (t >>> wheelBits) != (blockStart >>> wheelBits)) {
                break; // past the block in level 0 (or staged): still in an overflow level
            }
            Bucket bucket;
            if (inStaged) {
                bucket = staged.bucketFor(t);
            } else {
                Bucket[] buckets = levels[0];
                bucket = buckets == null ? null : buckets[(int) t & wheelMask];
            }
            if (bucket == null || bucket.isEmpty()) {
                continue;
            }
            int from = Math.min(toSkip, bucket.size);
            toSkip -= from;
            int to = from + Math.min(bucket.size - from, budget - visited);
            Entry[] entries = bucket.entries;
            for (int i = from; i < to; i++) {
                Entry e = entries[i];
                if (e != null) {
                    sum += e.deadline;
                }
            }
            visited += to - from;
        }
        warmSink += sum;
        return visited;
    }

    /**
     * The tick from which {@link #precascade} has work: the start of the block before the next
     * level-1 cascade; {@link #NO_TICK} if there is none. The worker wakes for it, so that the
     * cascade is spread over that block's rounds rather than left to one.
     */
    long nextPrecascadeTick() {
        long cascade = levels.length < 2 ? NO_TICK : nextCascade(1);
        if (cascade == NO_TICK) {
            return NO_TICK;
        }
        return Math.max(cascade - (wheelMask + 1L), currentTick + 1);
    }

    /** At the start of the staged block: the staged buckets become level 0 (which is empty by now). */
    private void swapStaged() {
        staged.started();
        if (!staged.hasBits()) {
            return;
        }
        Bucket[] oldLevel0 = levels[0];
        long[] oldBits = occupied[0];
        levels[0] = staged.buckets;
        occupied[0] = staged.bits;
        staged.exchange(oldLevel0, oldBits);
        if (oldLevel0 == null) {
            return;
        }
        // Level 0 holds only the block that just ended, all fired; should anything remain, re-place it.
        for (Bucket bucket : oldLevel0) {
            if (bucket != null && !bucket.isEmpty()) {
                drain(bucket, e -> place(e, Math.max(tickOf(e.deadline), currentTick)));
            }
        }
    }

    // ---------------------------------------------------------------------------------------

    /** First tick whose boundary is at or after {@code deadline}. */
    long tickOf(long deadline) {
        if (deadline <= 0) {
            return 0;
        }
        long ticks = deadline / tickNanos;
        return deadline % tickNanos == 0 ? ticks : ticks + 1;
    }

    /** Moves a bucket's entries, whose span starts now, down to the levels where they belong. */
    private void cascade(int level, int index) {
        Bucket[] buckets = levels[level];
        Bucket bucket = buckets == null ? null : buckets[index];
        if (bucket == null || bucket.isEmpty()) {
            return;
        }
        drain(bucket, e -> place(e, Math.max(tickOf(e.deadline), currentTick)));
    }

    /**
     * Takes the bucket's due entries into {@link #batch} in one pass over its array, compacting
     * those left (a later round, flat layout) in place.
     */
    private int expireBucket(long tick) {
        Bucket[] buckets = levels[0];
        Bucket bucket = buckets == null ? null : buckets[(int) tick & wheelMask];
        if (bucket == null || bucket.isEmpty()) {
            return 0;
        }
        long boundary = tick > maxTick ? Long.MAX_VALUE : tick * tickNanos;
        long min = Long.MAX_VALUE;
        Entry[] entries = bucket.entries;
        int n = bucket.size;
        Entry[] out = batch;
        if (out.length < n) {
            out = new Entry[Math.max(n, out.length * 2)];
            batch = out;
        }
        int count = 0;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Entry e = entries[i];
            if (e == null) {
                continue; // removed
            }
            if (e.deadline <= boundary) {
                e.bucket = null;
                out[count++] = e;
            } else {
                min = Math.min(min, e.deadline); // a later round (flat layout)
                e.slot = kept;
                entries[kept++] = e;
            }
        }
        touches += n;
        java.util.Arrays.fill(entries, kept, n, null);
        bucket.size = kept;
        bucket.live = kept;
        bucket.minDeadline = min;
        size -= count;
        if (kept == 0) {
            clearOccupied(bucket);
            bucket.trim();
        }
        return count;
    }

    /** Empties the bucket first, then hands its entries over, so the action may re-place them. */
    private void drain(Bucket bucket, Consumer<? super Entry> action) {
        if (bucket.isEmpty()) {
            return;
        }
        Entry[] entries = bucket.entries;
        int n = bucket.size;
        bucket.entries = NO_ENTRIES;
        bucket.size = 0;
        bucket.live = 0;
        bucket.generation++;
        bucket.minDeadline = Long.MAX_VALUE;
        clearOccupied(bucket);
        for (int i = 0; i < n; i++) {
            Entry e = entries[i];
            if (e == null) {
                continue;
            }
            entries[i] = null;
            e.bucket = null;
            action.accept(e);
        }
        if (bucket.isEmpty() && entries.length <= KEPT_CAPACITY) {
            bucket.entries = entries; // all slots are null again: reuse it
        }
    }

    private void place(Entry entry, long dueTick) {
        touches++;
        int level = levelFor(dueTick);
        int index = digit(dueTick, level);
        Bucket bucket = bucket(level, index);
        if (bucket.isEmpty()) {
            bucket.bits[index >>> 6] |= 1L << index;
        }
        bucket.add(entry);
        if (level == 0) {
            bucket.minDeadline = Math.min(bucket.minDeadline, entry.deadline);
        }
        if (eventHintValid) {
            // Level 0: the entry's own tick. Above: the start of its bucket's span, when it cascades.
            eventHint = Math.min(eventHint, clearLowBits(dueTick, level * wheelBits));
        }
    }

    private void unlink(Entry entry) {
        Bucket bucket = entry.bucket;
        bucket.entries[entry.slot] = null;
        entry.bucket = null;
        if (--bucket.live == 0) {
            bucket.size = 0; // every slot is clear
            bucket.generation++;
            bucket.minDeadline = Long.MAX_VALUE;
            clearOccupied(bucket);
            bucket.trim();
        }
    }

    private void clearOccupied(Bucket bucket) {
        bucket.bits[bucket.index >>> 6] &= ~(1L << bucket.index);
    }

    private Bucket bucket(int level, int index) {
        Bucket[] buckets = levels[level];
        if (buckets == null) {
            buckets = new Bucket[wheelMask + 1];
            levels[level] = buckets;
            occupied[level] = new long[(wheelMask >>> 6) + 1];
        }
        Bucket bucket = buckets[index];
        if (bucket == null) {
            bucket = new Bucket(level, index, occupied[level]);
            buckets[index] = bucket;
        }
        return bucket;
    }

    /** The level of the highest bit in which {@code dueTick} and the current tick differ. */
    private int levelFor(long dueTick) {
        if (!hierarchical) {
            return 0;
        }
        long diff = dueTick ^ currentTick;
        return diff == 0 ? 0 : (63 - Long.numberOfLeadingZeros(diff)) / wheelBits;
    }

    private int digit(long tick, int level) {
        return (int) (tick >>> (level * wheelBits)) & wheelMask;
    }

    private static long clearLowBits(long value, int bits) {
        return bits >= 64 ? 0 : (value >>> bits) << bits;
    }

    /**
     * Level 0: the soonest tick at which some bucket has an entry due. A bucket at offset {@code k}
     * from the next tick cannot fire before {@code currentTick + 1 + k}, so the circular scan stops
     * as soon as that bound passes the best found.
     */
    private long nextLevel0Event() {
        long[] bits = occupied[0];
        if (bits == null) {
            return NO_TICK;
        }
        long first = currentTick + 1;
        int start = (int) first & wheelMask;
        long best = NO_TICK;
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
                long base = Math.max(first, tickOf(levels[0][index].minDeadline));
                best = Math.min(best, base + ((index - base) & wheelMask));
            }
        }
        return best;
    }

    /** Levels above 0: the start of the next non-empty bucket's span in the current block. */
    private long nextCascade(int level) {
        long[] bits = occupied[level];
        if (bits == null) {
            return NO_TICK;
        }
        int index = nextSetBit(bits, digit(currentTick, level) + 1, wheelMask + 1);
        if (index < 0) {
            return NO_TICK;
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
