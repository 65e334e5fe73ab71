package io.wheeltimer.benchmarks.jmh;

import io.wheeltimer.HashedWheelTimer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * For the benchmarks only: switches on and reads a timer's worker profile (time per phase of a
 * round, rounds, the longest round, the costliest round's CPU time). The core keeps it out of its
 * public API: it offers two package-private static methods on {@code io.wheeltimer.WorkerProfile},
 * taking and returning JDK types only, reached here, and only here, by reflection (a core test
 * calls them, so a rename there breaks that test rather than this probe at run time).
 */
public final class WorkerProbe {

    private static final Method START;
    private static final Method READ;

    static {
        try {
            Class<?> profile = Class.forName("io.wheeltimer.WorkerProfile");
            START = profile.getDeclaredMethod("start", HashedWheelTimer.class, LongSupplier.class);
            READ = profile.getDeclaredMethod("read", HashedWheelTimer.class);
            START.setAccessible(true);
            READ.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private WorkerProbe() {}

    /**
     * The worker's time per phase (ms), its rounds, its longest round (ms) and its costliest round's
     * CPU time (ms, with a CPU clock), since {@link #reset}; exact once the timer stopped.
     */
    public static Map<String, Object> profile(HashedWheelTimer timer) {
        Map<String, Long> p = invoke(READ, timer);
        Map<String, Object> out = new LinkedHashMap<>();
        if (p.isEmpty()) {
            return out; // never switched on
        }
        out.put("takeMillis", p.get("takeNanos") / 1e6);
        out.put("cascadeMillis", p.get("cascadeNanos") / 1e6);
        out.put("expireMillis", p.get("expireNanos") / 1e6);
        out.put("dispatchMillis", p.get("dispatchNanos") / 1e6);
        out.put("rounds", p.get("rounds"));
        out.put("longestRoundMillis", p.get("longestRoundNanos") / 1e6);
        if (p.containsKey("costliestRoundCpuNanos")) {
            out.put("costliestRoundCpuMillis", p.get("costliestRoundCpuNanos") / 1e6);
        }
        return out;
    }

    /**
     * Starts the profile afresh from the worker's next round (call it after a warm-up; the profile
     * is off until then). With {@code cpuClock}, also the worker's CPU time per round (read on the
     * worker thread itself, twice a round): the wall time of a round includes any time the machine
     * gave the thread to another.
     */
    public static void reset(HashedWheelTimer timer, boolean cpuClock) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        LongSupplier clock = cpuClock ? threads::getCurrentThreadCpuTime : null;
        invoke(START, timer, clock);
    }

    @SuppressWarnings("unchecked")
    private static <T> T invoke(Method method, Object... args) {
        try {
            return (T) method.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("WorkerProfile." + method.getName() + " failed", e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("WorkerProfile." + method.getName() + " is not accessible", e);
        }
    }
}
