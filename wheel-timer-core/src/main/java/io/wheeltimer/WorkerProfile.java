package io.wheeltimer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Worker-thread time per phase of a round, in nanoseconds (System.nanoTime, whatever the ticker),
 * the number of rounds, the longest round (wall time: it includes any time the thread was not
 * running) and, with a CPU clock, the worker's CPU time in its costliest round. Written by the
 * worker only; read after it ended, or as an estimate.
 *
 * <p>Off by default: {@link #start} switches it on for a timer. It is reached by the benchmarks
 * through reflection on {@link #start} and {@link #read}, which take and return JDK types only, so
 * that the public API carries nothing for them; a core test calls both, so a rename breaks it.
 */
final class WorkerProfile implements RoundObserver {

    private final LongSupplier cpuClock;
    private final long[] phases = new long[4];
    private long rounds;
    private long longestRoundNanos;
    private long costliestRoundCpuNanos;
    private long roundStartNanos;
    private long roundCpuStartNanos;
    private long markNanos;

    private WorkerProfile(LongSupplier cpuClock) {
        this.cpuClock = cpuClock;
    }

    /**
     * Switches the profile of {@code timer}'s worker on, afresh, from its next round: call it after
     * a warm-up. {@code cpuClock}, if not null, is read on the worker thread at the start and end of
     * each round (the thread's CPU time in ns).
     */
    static void start(HashedWheelTimer timer, LongSupplier cpuClock) {
        timer.worker().observe(new WorkerProfile(cpuClock));
    }

    /**
     * The profile of {@code timer}'s worker so far, exact once the timer stopped: {@code takeNanos},
     * {@code cascadeNanos}, {@code expireNanos}, {@code dispatchNanos}, {@code rounds}, {@code
     * longestRoundNanos} and, with a CPU clock, {@code costliestRoundCpuNanos}; empty if it was never
     * started.
     */
    static Map<String, Long> read(HashedWheelTimer timer) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (!(timer.worker().observer() instanceof WorkerProfile p)) {
            return out;
        }
        out.put("takeNanos", p.phases[TAKE]);
        out.put("cascadeNanos", p.phases[CASCADE]);
        out.put("expireNanos", p.phases[EXPIRE]);
        out.put("dispatchNanos", p.phases[DISPATCH]);
        out.put("rounds", p.rounds);
        out.put("longestRoundNanos", p.longestRoundNanos);
        if (p.cpuClock != null) {
            out.put("costliestRoundCpuNanos", p.costliestRoundCpuNanos);
        }
        return out;
    }

    @Override
    public void startRound(long startNanos) {
        roundStartNanos = startNanos;
        markNanos = startNanos;
        roundCpuStartNanos = cpuClock == null ? 0 : cpuClock.getAsLong();
    }

    @Override
    public void endPhase(int phase) {
        long nowNanos = System.nanoTime();
        phases[phase] += nowNanos - markNanos;
        markNanos = nowNanos;
    }

    @Override
    public void endRound() {
        endPhase(CASCADE);
        rounds++;
        longestRoundNanos = Math.max(longestRoundNanos, markNanos - roundStartNanos);
        if (cpuClock != null) {
            costliestRoundCpuNanos = Math.max(costliestRoundCpuNanos, cpuClock.getAsLong() - roundCpuStartNanos);
        }
    }
}
