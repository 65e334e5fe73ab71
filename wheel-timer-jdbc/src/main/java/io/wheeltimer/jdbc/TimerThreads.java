package io.wheeltimer.jdbc;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a timer starts: the poll thread, the housekeeping thread, and the executor of its
 * handlers when the builder is given none (bounded in threads and in queue, so that a burst is refused
 * and left to the next poll rather than held in memory). All are daemon threads.
 */
final class TimerThreads {

    private TimerThreads() {}

    /**
     * The default executor of the handlers: {@code threads} threads at most (each let go after a
     * minute idle), a queue of one batch, and a refusal beyond that.
     */
    static ThreadPoolExecutor handlerPool(int threads, int batchSize) {
        AtomicInteger started = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                threads,
                threads,
                1,
                TimeUnit.MINUTES,
                new ArrayBlockingQueue<>(batchSize),
                task -> {
                    Thread t = new Thread(task, "wheel-timer-durable-" + started.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** A single daemon thread named {@code name}, whose delayed tasks a shutdown drops. */
    static ScheduledThreadPoolExecutor single(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, name);
            t.setDaemon(true);
            return t;
        });
        // The next run is always one delayed task: a stop drops it rather than waiting for it.
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        return executor;
    }
}
