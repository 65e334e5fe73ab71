package io.wheeltimer.benchmarks.jmh;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The timers compared, behind one small interface, each configured as a user would: the same
 * tick and wheel size where they have one, tasks on the timer's own thread.
 */
public enum Contender {
    WHEEL_FLAT("wheel-timer flat"),
    WHEEL_HIERARCHICAL("wheel-timer hierarchical"),
    NETTY("Netty HashedWheelTimer"),
    JDK("JDK ScheduledThreadPoolExecutor");

    /** A timer under test. */
    public interface Timer {
        Object schedule(Runnable task, long delay, TimeUnit unit);

        void cancel(Object handle);

        void stop();

        /** The wheel's worker profile (see {@link WorkerProbe}); empty for the others. */
        default java.util.Map<String, Object> workerProfile() {
            return java.util.Map.of();
        }

        /** Starts the wheel's worker profile afresh; call it only while nothing is pending. No-op for the others. */
        default void resetWorkerProfile() {}
    }

    private final String label;

    Contender(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public Timer create(long tickNanos, int ticksPerWheel, ThreadFactory threads) {
        switch (this) {
            case WHEEL_FLAT:
            case WHEEL_HIERARCHICAL: {
                io.wheeltimer.HashedWheelTimer timer = io.wheeltimer.HashedWheelTimer.builder()
                        .threadFactory(threads)
                        .tickDuration(java.time.Duration.ofNanos(tickNanos))
                        .ticksPerWheel(ticksPerWheel)
                        .hierarchical(this == WHEEL_HIERARCHICAL)
                        .leakDetection(false)
                        .build();
                return new Timer() {
                    @Override
                    public Object schedule(Runnable task, long delay, TimeUnit unit) {
                        return timer.newTimeout(t -> task.run(), delay, unit);
                    }

                    @Override
                    public void cancel(Object handle) {
                        ((io.wheeltimer.Timeout) handle).cancel();
                    }

                    @Override
                    public void stop() {
                        timer.stop();
                    }

                    @Override
                    public java.util.Map<String, Object> workerProfile() {
                        return WorkerProbe.profile(timer);
                    }

                    @Override
                    public void resetWorkerProfile() {
                        WorkerProbe.reset(timer, true);
                    }
                };
            }
            case NETTY: {
                io.netty.util.HashedWheelTimer timer = new io.netty.util.HashedWheelTimer(
                        threads, tickNanos, TimeUnit.NANOSECONDS, ticksPerWheel, false);
                return new Timer() {
                    @Override
                    public Object schedule(Runnable task, long delay, TimeUnit unit) {
                        return timer.newTimeout(t -> task.run(), delay, unit);
                    }

                    @Override
                    public void cancel(Object handle) {
                        ((io.netty.util.Timeout) handle).cancel();
                    }

                    @Override
                    public void stop() {
                        timer.stop();
                    }
                };
            }
            default: {
                ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
                executor.setRemoveOnCancelPolicy(true);
                return new Timer() {
                    @Override
                    public Object schedule(Runnable task, long delay, TimeUnit unit) {
                        return executor.schedule(task, delay, unit);
                    }

                    @Override
                    public void cancel(Object handle) {
                        ((ScheduledFuture<?>) handle).cancel(false);
                    }

                    @Override
                    public void stop() {
                        executor.shutdownNow();
                    }
                };
            }
        }
    }
}
