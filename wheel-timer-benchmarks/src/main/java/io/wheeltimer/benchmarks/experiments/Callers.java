package io.wheeltimer.benchmarks.experiments;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/** The callers of the durable experiments: 4 threads that schedule or cancel, as an application's would. */
final class Callers {

    private static final int SCHEDULING_THREADS = 4;

    private Callers() {}

    /** Runs {@code action} for 0 until {@code count} on 4 threads, each taking every 4th; rethrows a failure. */
    static void onThreads(int count, IntConsumer action) throws InterruptedException {
        RuntimeException[] failure = new RuntimeException[1];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < SCHEDULING_THREADS; t++) {
            int offset = t;
            Thread thread = new Thread(
                    () -> {
                        try {
                            for (int i = offset; i < count && failure[0] == null; i += SCHEDULING_THREADS) {
                                action.accept(i);
                            }
                        } catch (RuntimeException e) {
                            failure[0] = e;
                        }
                    },
                    "caller-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
    }
}
