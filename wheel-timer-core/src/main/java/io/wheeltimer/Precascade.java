package io.wheeltimer;

/**
 * The worker's pre-cascade: spreads the cascade of the level-1 bucket that starts the next block
 * over the rounds before that block ({@link TimingWheel#precascade}), instead of moving it all in
 * the one round where the block starts, which would then be as long as the bucket is big.
 *
 * <p>Invariant: each round that is not behind moves at least the rate that empties the bucket
 * before its block starts ({@link TimingWheel#precascadeRate}), so a worker that keeps up starts
 * the block with only what was scheduled into that bucket meanwhile, which cascades then as
 * before. It changes no entry's tick nor the order within a tick.
 *
 * <p>Cost: per round, entries moved until the round has run {@link Worker#AHEAD_OF_TIME_NANOS} (or
 * that rate, if more), at most {@link #BUDGET}, with a clock read every {@link #STEP} entries; and while entries
 * are left, the worker looks again at the next tick rather than sleep until the block.
 */
final class Precascade {

    /**
     * Entries moved per round at most, whatever the time bound: with 512 ticks a block, up to 4 M
     * entries in one level-1 bucket are moved before their block starts.
     */
    static final int BUDGET = 8192;
    /** Entries moved between two looks at the clock: a clock read costs about as much as moving a few warm entries. */
    static final int STEP = 256;

    private final TimingWheel wheel;

    Precascade(TimingWheel wheel) {
        this.wheel = wheel;
    }

    /**
     * Moves entries until {@code stopAtNanos} (System.nanoTime), but at least the rate.
     *
     * @return whether entries are left for the next round
     */
    boolean run(long stopAtNanos) {
        int due = wheel.precascadeRate();
        boolean more = due > 0;
        for (int moved = 0; more && moved < BUDGET; moved += STEP) {
            if (moved >= due && System.nanoTime() - stopAtNanos >= 0) {
                break;
            }
            more = wheel.precascade(STEP);
        }
        return more;
    }
}
