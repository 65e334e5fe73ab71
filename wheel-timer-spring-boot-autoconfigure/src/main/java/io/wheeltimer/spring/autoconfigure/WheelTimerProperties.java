package io.wheeltimer.spring.autoconfigure;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the auto-configured {@code wheelTimer}, under {@code wheel-timer}.
 */
@ConfigurationProperties("wheel-timer")
public class WheelTimerProperties {

    /**
     * Whether to auto-configure the wheel timer.
     */
    private boolean enabled = true;

    /**
     * Length of one tick: the precision of the timer. Positive; a tick under 1ms is raised to 1ms,
     * with a warning, as Netty's HashedWheelTimer does.
     */
    private Duration tickDuration = Duration.ofMillis(100);

    /**
     * Buckets per wheel, rounded up to a power of two; from 1 to 2^30.
     */
    private int ticksPerWheel = 512;

    /**
     * Pending timeouts allowed before newTimeout is refused; 0 or less for no limit.
     */
    private long maxPendingTimeouts = 0;

    /**
     * Whether timeouts more than one rotation away wait in coarser overflow wheels instead of
     * being looked at every rotation.
     */
    private boolean hierarchical = true;

    /**
     * Name of the worker thread, also the timer's name.
     */
    private String threadName = "wheel-timer";

    /**
     * Bean name of an Executor that runs the tasks; empty to run them on the worker thread.
     */
    private String executor = "";

    private final Shutdown shutdown = new Shutdown();

    private final Annotation annotation = new Annotation();

    private final Lettuce lettuce = new Lettuce();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getTickDuration() {
        return tickDuration;
    }

    public void setTickDuration(Duration tickDuration) {
        this.tickDuration = tickDuration;
    }

    public int getTicksPerWheel() {
        return ticksPerWheel;
    }

    public void setTicksPerWheel(int ticksPerWheel) {
        this.ticksPerWheel = ticksPerWheel;
    }

    public long getMaxPendingTimeouts() {
        return maxPendingTimeouts;
    }

    public void setMaxPendingTimeouts(long maxPendingTimeouts) {
        this.maxPendingTimeouts = maxPendingTimeouts;
    }

    public boolean isHierarchical() {
        return hierarchical;
    }

    public void setHierarchical(boolean hierarchical) {
        this.hierarchical = hierarchical;
    }

    public String getThreadName() {
        return threadName;
    }

    public void setThreadName(String threadName) {
        this.threadName = threadName;
    }

    public String getExecutor() {
        return executor;
    }

    public void setExecutor(String executor) {
        this.executor = executor;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Annotation getAnnotation() {
        return annotation;
    }

    public Lettuce getLettuce() {
        return lettuce;
    }

    /** How {@code @WheelTimeout} calls run. */
    public static class Annotation {

        /**
         * Bean name of the Executor that runs @WheelTimeout calls whose annotation names none; empty:
         * the timer's own task executor. Only the default name may be absent (the timer's own task
         * executor runs the calls then): any other name that is not an Executor bean stops startup.
         */
        private String executor = "applicationTaskExecutor";

        /**
         * Whether a @WheelTimeout call carries the caller's context into the deferred run: the SLF4J
         * MDC and every ThreadLocalAccessor of Micrometer context-propagation (trace, security).
         */
        private boolean propagateContext = true;

        public String getExecutor() {
            return executor;
        }

        public void setExecutor(String executor) {
            this.executor = executor;
        }

        public boolean isPropagateContext() {
            return propagateContext;
        }

        public void setPropagateContext(boolean propagateContext) {
            this.propagateContext = propagateContext;
        }
    }

    /** Lettuce (Spring Data Redis) on the wheel. */
    public static class Lettuce {

        /**
         * Whether Lettuce's command timeouts (and its other delays) run on the wheel timer, through
         * a ClientResourcesBuilderCustomizer, instead of on a Netty HashedWheelTimer and thread of
         * Lettuce's own. Needs wheel-timer-netty on the class path.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** What happens to pending timeouts when the application context closes. */
    public static class Shutdown {

        /**
         * On shutdown, timeouts due within this period still run before the timer stops; the
         * rest are cancelled and their number logged.
         */
        private Duration awaitTerminationPeriod = Duration.ZERO;

        public Duration getAwaitTerminationPeriod() {
            return awaitTerminationPeriod;
        }

        public void setAwaitTerminationPeriod(Duration awaitTerminationPeriod) {
            this.awaitTerminationPeriod = awaitTerminationPeriod;
        }
    }
}
