package io.wheeltimer;

/**
 * The worker's pre-cascade: spreads the cascade of the level-1 bucket that starts the next block
 * over the rounds before that block ({@link TimingWheel#precascade}), instead of moving it all in
 * the one round where the block starts (a million entries in one bucket would make that round
 * hundreds of milliseconds long).
 *
 * <p>Invariant: each round that is not behind moves at least the rate that empties the bucket
 * before its block starts ({@link TimingWheel#precascadeRate}), so whatever the clock does the block
 * starts with at most what was scheduled into that bucket meanwhile; it changes no entry's tick.
 *
 * <p>Cost: per round, entries moved until the round has run {@link #ROUND_NANOS} (or that rate, if
 * more), at most {@link #BUDGET}, with a clock read every {@link #STEP} entries; and while entries
 * are left, the worker looks again at the next tick rather than sleep until the block.
 */
final class Precascade {

    /** Entries moved per round at most: with 512 buckets a level-1 bucket of 4 M entries is moved in time. */
    static final int BUDGET = 8192;
    /**
     * A round pre-cascades until it has run this long (from its start). It bounds the round's time
     * where a count would not: on cold memory an entry can cost microseconds to move. The rate a
     * million entries in one bucket need with 512 buckets is under 2,000 a tick, well within it.
     */
    static final long ROUND_NANOS = 1_000_000;
    /** Entries moved between two looks at the clock. */
    static final int STEP = 256;

    private final TimingWheel wheel;

    Precascade(TimingWheel wheel) {
        this.wheel = wheel;
    }

    /**
     * Moves entries until {@code roundStart + ROUND_NANOS} (System.nanoTime), but at least the rate.
     *
     * @return whether entries are left for the next round
     */
    boolean run(long roundStart) {
        long stopAt = roundStart + ROUND_NANOS;
        int due = wheel.precascadeRate();
        boolean more = due > 0;
        for (int moved = 0; more && moved < BUDGET; moved += STEP) {
            if (moved >= due && System.nanoTime() - stopAt >= 0) {
                break;
            }
            more = wheel.precascade(STEP);
        }
        return more;
    }
}
