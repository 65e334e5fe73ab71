package io.wheeltimer.benchmarks.experiments;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/** Records the threads a timer creates, to find its worker: the first one. */
final class WorkerThreads implements ThreadFactory {
    private final List<Thread> created = new ArrayList<>();

    @Override
    public synchronized Thread newThread(Runnable r) {
        Thread thread = new Thread(r, "timer-under-test");
        thread.setDaemon(true);
        created.add(thread);
        return thread;
    }

    synchronized Thread worker() {
        return created.get(0);
    }
}
