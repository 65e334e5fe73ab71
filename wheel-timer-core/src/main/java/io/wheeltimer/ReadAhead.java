package io.wheeltimer;

/**
 * The worker's read-ahead before a long sleep ends: it wakes early and reads the entries due first
 * ({@link #warm}) into the caches and TLB, so that the first full ticks after seconds asleep do not
 * run on cold memory and fall behind. It sits beside the wheel, not in it: the wheel only lends it
 * the buckets ({@link TimingWheel#dueBucket}).
 *
 * <p>Invariant: at most one early wake per sleep. A sleep longer than {@link #WARM_MIN_SLEEP_NANOS}
 * (and two ticks) is cut short by {@code min(WARM_LEAD_NANOS, half the sleep)}, at least one tick;
 * the rounds from then on read that span's entries, in tick order, until all are read, {@link
 * #WARM_BUDGET} are, or the tick comes; what is left of that sleep is not cut again. It only reads:
 * it changes neither the wheel nor when anything fires.
 *
 * <p>Cost: one extra wake per long sleep, and per round while reading about {@link
 * Worker#AHEAD_OF_TIME_NANOS} of reads at most (with a clock read every {@link #WARM_STEP} entries),
 * over back-to-back rounds, so that hand-offs and queries are served in between however cold the
 * memory.
 */
final class ReadAhead {

    /**
     * How far ahead of a long sleep's end the read-ahead starts at most (half the sleep if less).
     * Too late and the reads do not finish in time (a first read can cost microseconds per 4 KiB
     * page); too early and the pages are cold again by then: 100 ms reads a window of a million
     * entries in time on cold memory.
     */
    static final long WARM_LEAD_NANOS = 100_000_000;
    /** Only a sleep longer than this (and two ticks) ends with an early wake: shorter ones stay warm. */
    static final long WARM_MIN_SLEEP_NANOS = 20_000_000;
    /** Entries read ahead at most per sleep: a million due in the lead's span are read whole. */
    static final int WARM_BUDGET = 1 << 21;
    /**
     * Entries read between two looks at the clock: at a few µs an entry when every one is on a cold
     * page, 64 overrun the round's time bound ({@link Worker#AHEAD_OF_TIME_NANOS}) by a fraction of it.
     */
    static final int WARM_STEP = 64;

    private final TimingWheel wheel;
    private final long maxTick;
    /** {@link #WARM_LEAD_NANOS} in ticks, at least 1. */
    private final long leadTicks;
    /** {@link #WARM_MIN_SLEEP_NANOS} in ticks, at least 2. */
    private final long minSleepTicks;
    /** The tick a long sleep was cut short for, while its entries are being read; else NO_TICK. */
    private long tick = TimingWheel.NO_TICK;
    /** The ticks from {@link #tick} on that the current read-ahead covers. */
    private long spanTicks;
    /** Slots read ahead for {@link #tick} so far. */
    private int read;
    /** The last tick a sleep was cut short for, so that the rest of that sleep is not cut again. */
    private long lastTick = TimingWheel.NO_TICK;
    /** Written by {@link #warm} only, and never read, so that its loads are not optimized away. */
    private long warmSink;

    ReadAhead(TimingWheel wheel, long tickNanos) {
        this.wheel = wheel;
        this.maxTick = Long.MAX_VALUE / tickNanos;
        this.leadTicks = Math.max(1, (WARM_LEAD_NANOS + tickNanos - 1) / tickNanos);
        this.minSleepTicks = Math.max(2, (WARM_MIN_SLEEP_NANOS + tickNanos - 1) / tickNanos);
    }

    /** Whether a read-ahead is under way: the worker goes round again at once rather than sleep. */
    boolean isReading() {
        return tick != TimingWheel.NO_TICK;
    }

    /** Woken (at {@code nowTick}) before the early wake: the read-ahead is dropped, and armed again by {@link #planWake}. */
    void forgetIfBefore(long nowTick) {
        if (tick != TimingWheel.NO_TICK && tick - nowTick > spanTicks) {
            tick = TimingWheel.NO_TICK;
        }
    }

    /**
     * Reads ahead until {@code stopAtNanos} (System.nanoTime), and ends the read-ahead once all is
     * read, {@link #WARM_BUDGET} is, or its tick has come ({@code nowTick}).
     */
    void read(long nowTick, long stopAtNanos) {
        if (tick == TimingWheel.NO_TICK) {
            return;
        }
        int ticks = (int) Math.min(spanTicks, Integer.MAX_VALUE);
        boolean more = tick > nowTick;
        while (more) {
            int ask = Math.min(WARM_STEP, WARM_BUDGET - read);
            int got = warm(tick, ticks, read, ask);
            read += got;
            more = got == ask && read < WARM_BUDGET;
            if (System.nanoTime() - stopAtNanos >= 0) {
                break;
            }
        }
        if (!more) {
            tick = TimingWheel.NO_TICK;
        }
    }

    /**
     * The tick to wake at for a sleep (at {@code nowTick}) until {@code wakeTick}: earlier if the
     * sleep is long, not already being read ahead for, and not the rest of one cut short before.
     */
    long planWake(long nowTick, long wakeTick) {
        boolean cutBefore = wakeTick == lastTick && wakeTick - nowTick <= spanTicks;
        if (tick != TimingWheel.NO_TICK || wakeTick > maxTick || wakeTick - nowTick <= minSleepTicks || cutBefore) {
            return wakeTick;
        }
        tick = wakeTick;
        lastTick = wakeTick;
        read = 0;
        spanTicks = Math.min(leadTicks, (wakeTick - nowTick) / 2);
        return wakeTick - spanTicks;
    }

    /**
     * Reads the entries due from {@code fromTick} (after the wheel's current tick) over the next
     * {@code ticks} ticks, bucket by bucket in tick order: it passes over the first {@code skip}
     * bucket slots (read by an earlier call), reads at most {@code budget} more, and changes
     * nothing. It loads them, and the page-table entries that map them, into the caches before
     * their deadline. A bucket untouched for a long sleep is cold, and its entries lie wherever
     * their producers allocated them, so taking it due costs a cache miss and a TLB miss per entry.
     * Entries still in an overflow level are skipped: their cascade reads them.
     *
     * @return how many slots it read (removed entries' included); less than {@code budget} once
     *     there are no more
     */
    int warm(long fromTick, int ticks, int skip, int budget) {
        int toSkip = skip;
        int visited = 0;
        long sum = 0;
        long endTick = Math.min(fromTick + Math.min(ticks, (long) wheel.ticksPerWheel()), maxTick + 1);
        for (long atTick = fromTick; atTick < endTick && visited < budget; atTick++) {
            Bucket bucket = wheel.dueBucket(atTick);
            if (bucket == TimingWheel.OVERFLOW) {
                break; // past the block in level 0 (or staged): still in an overflow level
            }
            if (bucket == null || bucket.isEmpty()) {
                continue;
            }
            int from = Math.min(toSkip, bucket.size);
            toSkip -= from;
            int to = from + Math.min(bucket.size - from, budget - visited);
            TimingWheel.Entry[] entries = bucket.entries;
            for (int i = from; i < to; i++) {
                TimingWheel.Entry e = entries[i];
                if (e != null) {
                    sum += e.deadlineNanos;
                }
            }
            visited += to - from;
        }
        warmSink += sum;
        return visited;
    }
}
