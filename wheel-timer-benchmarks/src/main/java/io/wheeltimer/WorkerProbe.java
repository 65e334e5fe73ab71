package io.wheeltimer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * For the benchmarks only: reads a timer's package-private worker profile (time per phase of a
 * round, the longest round), so that the public API need not expose it. Lives in the benchmarks
 * module, in the core's package.
 */
public final class WorkerProbe {

    private WorkerProbe() {}

    /** The worker's time per phase (ms) and its longest round (ms); exact once the timer stopped. */
    public static Map<String, Object> profile(HashedWheelTimer timer) {
        Worker.Profile p = timer.profile();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("takeMillis", p.take / 1e6);
        out.put("cascadeMillis", p.cascade / 1e6);
        out.put("expireMillis", p.expire / 1e6);
        out.put("dispatchMillis", p.dispatch / 1e6);
        out.put("rounds", p.rounds);
        out.put("longestRoundMillis", p.longestRound / 1e6);
        if (p.cpuClock != null) {
            out.put("costliestRoundCpuMillis", p.costliestRoundCpu / 1e6);
        }
        return out;
    }

    /**
     * Starts the profile afresh (after a warm-up). Call it only while the worker sleeps with nothing
     * pending: the worker alone writes the profile, and the next timeout scheduled by this thread
     * (published to the worker through the hand-off stack) orders these writes before its own.
     */
    public static void reset(HashedWheelTimer timer) {
        Worker.Profile profile = timer.profile();
        profile.reset();
        // From now on also the worker's CPU time per round (read on the worker thread itself): the
        // wall time of a round includes any time the machine gave the thread to another.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        profile.cpuClock = threads::getCurrentThreadCpuTime;
    }
}
