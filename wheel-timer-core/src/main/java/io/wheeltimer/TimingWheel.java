package io.wheeltimer;

import java.util.Arrays;
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
    /** Returned by {@link #dueBucket} for a tick whose entries are still in an overflow level. */
    static final Bucket OVERFLOW = new Bucket(-1, 0, new long[1]);

    /**
     * An element of a {@link Bucket}: it knows its bucket and its slot there, so removal is O(1).
     * {@code bucket == null} means "not in the wheel". Subclassed by the timer's timeout handle, so
     * a pending timeout costs one object.
     */
    static class Entry {
        /** Nanoseconds since the timer started, >= 0. Set before {@link #schedule}; then fixed. */
        long deadlineNanos;

        Bucket bucket;
        int slot;
    }

    /** Ticks past this one can never be reached: their boundary does not fit in a long. */
    private final long maxTick;

    private final long tickNanos;
    private final int wheelBits;
    private final int wheelMask;
    private final WheelLevels levels;

    private long currentTick;
    private long size;
    /** Entries placed in a bucket or compared against a tick: the wheel's work, for tests. */
    private long touches;
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
        this.levels = new WheelLevels(tickNanos, ticksPerWheel, hierarchical);
        this.wheelBits = levels.wheelBits;
        this.wheelMask = levels.wheelMask;
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
        return levels.hierarchical;
    }

    /** Buckets per level. */
    int ticksPerWheel() {
        return wheelMask + 1;
    }

    /**
     * Adds an entry, due at the first tick after {@link #currentTick()} whose boundary is at or
     * after {@code entry.deadlineNanos}.
     *
     * @throws IllegalStateException if the entry is already in a wheel
     */
    void schedule(Entry entry) {
        if (entry.bucket != null) {
            throw new IllegalStateException("entry is already scheduled");
        }
        place(entry, Math.max(tickOf(entry.deadlineNanos), currentTick + 1));
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
        entry.bucket.remove(entry);
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
        long eventTick = nextEventTick();
        while (eventTick <= tick && work < limit) {
            cascadeTo(eventTick);
            sink.cascaded(eventTick);
            int due = expireBucket(eventTick);
            work += due + 1;
            boolean goOn = sink.expired(eventTick, batch, due);
            Arrays.fill(batch, 0, due, null);
            eventTick = nextEventTick();
            if (!goOn) {
                return eventTick;
            }
        }
        if (eventTick > tick && tick > currentTick) {
            currentTick = tick; // nextEventTick() is after it: the hint stays valid
        }
        return eventTick;
    }

    /** Moves the current tick to {@code tick}, which is {@link #nextEventTick()}, and cascades what starts there. */
    private void cascadeTo(long tick) {
        currentTick = tick;
        eventHintValid = false;
        if (tick == staged.start()) {
            swapStaged();
        }
        for (int level = levels.count() - 1; level > 0; level--) {
            if ((tick & ((1L << (level * wheelBits)) - 1)) == 0) {
                Bucket bucket = levels.existing(level, levels.digit(tick, level));
                if (bucket != null) {
                    bucket.drain(this::placeAgain); // its span starts now: down to where its entries belong
                }
            }
        }
    }

    /**
     * The earliest tick after {@link #currentTick()} at which an entry may expire or a bucket
     * cascades; {@link #NO_TICK} if the wheel is empty. It may be early (after a removal), never late.
     */
    long nextEventTick() {
        if (!eventHintValid) {
            long best = levels.nextLevel0Event(currentTick);
            for (int level = 1; level < levels.count(); level++) {
                best = Math.min(best, levels.nextCascade(level, currentTick));
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
        forEachBucket(bucket -> bucket.forEach(action));
    }

    /** Removes every entry, handing each to {@code removed}. */
    void clear(Consumer<? super Entry> removed) {
        forEachBucket(bucket -> bucket.drain(removed));
        size = 0;
        eventHint = NO_TICK;
        eventHintValid = true;
    }

    private void forEachBucket(Consumer<Bucket> action) {
        WheelLevels.forEach(staged.buckets, action);
        levels.forEachBucket(action);
    }

    /**
     * The bucket that holds the entries due at {@code tick} (after {@link #currentTick()}): in level
     * 0 or staged; {@link #OVERFLOW} while they still wait in an overflow level (their cascade reads
     * them), null if there is none. For reading only.
     */
    Bucket dueBucket(long tick) {
        boolean inStaged = staged.start() != NO_TICK && tick >= staged.start();
        long blockStart = inStaged ? staged.start() : currentTick;
        if (levels.hierarchical && (tick >>> wheelBits) != (blockStart >>> wheelBits)) {
            return OVERFLOW;
        }
        if (inStaged) {
            return staged.bucketFor(tick);
        }
        return levels.existing(0, (int) tick & wheelMask);
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
        return WheelLevels.clearLowBits(currentTick, wheelBits) + (wheelMask + 1L);
    }

    /** The level-1 bucket that cascades at {@code blockStart}, if it holds anything to pre-cascade. */
    private Bucket precascadeSource(long blockStart) {
        if (levels.count() < 2) {
            return null;
        }
        int index = levels.digit(blockStart, 1);
        if (blockStart > maxTick || blockStart < 0 || index == 0) {
            return null; // a new level-2 block starts there: its entries cascade through level 2
        }
        Bucket source = levels.existing(1, index);
        return source == null || source.isEmpty() ? null : source;
    }

    /**
     * The tick from which {@link #precascade} has work: the start of the block before the next
     * level-1 cascade; {@link #NO_TICK} if there is none. The worker wakes for it, so that the
     * cascade is spread over that block's rounds rather than left to one.
     */
    long nextPrecascadeTick() {
        long cascade = levels.count() < 2 ? NO_TICK : levels.nextCascade(1, currentTick);
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
        Bucket[] oldLevel0 = levels.level(0);
        long[] oldBits = levels.bits(0);
        levels.replaceLevel0(staged.buckets, staged.bits);
        staged.exchange(oldLevel0, oldBits);
        if (oldLevel0 == null) {
            return;
        }
        // Level 0 holds only the block that just ended, all fired; should anything remain, re-place it.
        for (Bucket bucket : oldLevel0) {
            if (bucket != null && !bucket.isEmpty()) {
                bucket.drain(this::placeAgain);
            }
        }
    }

    /** First tick whose boundary is at or after {@code deadlineNanos}. */
    long tickOf(long deadlineNanos) {
        return levels.tickOf(deadlineNanos);
    }

    /** Takes the entries due at {@code tick} into {@link #batch}; see {@link Bucket#takeDue}. */
    private int expireBucket(long tick) {
        Bucket bucket = levels.existing(0, (int) tick & wheelMask);
        if (bucket == null || bucket.isEmpty()) {
            return 0;
        }
        if (batch.length < bucket.size) {
            batch = new Entry[Math.max(bucket.size, batch.length * 2)];
        }
        touches += bucket.size;
        int count = bucket.takeDue(tick > maxTick ? Long.MAX_VALUE : tick * tickNanos, batch);
        size -= count;
        return count;
    }

    /** Places an entry taken out of a bucket whose span starts now: at its own tick, or now if that passed. */
    private void placeAgain(Entry entry) {
        place(entry, Math.max(tickOf(entry.deadlineNanos), currentTick));
    }

    private void place(Entry entry, long dueTick) {
        touches++;
        int level = levels.levelFor(dueTick, currentTick);
        Bucket bucket = levels.bucket(level, levels.digit(dueTick, level));
        bucket.add(entry);
        if (level == 0) {
            bucket.minDeadlineNanos = Math.min(bucket.minDeadlineNanos, entry.deadlineNanos);
        }
        if (eventHintValid) {
            // Level 0: the entry's own tick. Above: the start of its bucket's span, when it cascades.
            eventHint = Math.min(eventHint, WheelLevels.clearLowBits(dueTick, level * wheelBits));
        }
    }
}
