package io.wheeltimer.benchmarks.experiments;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** Records each handler start: per key {@code k<i>}, how many times it ran and how late it first started. */
final class HandlerRecorder implements DurableContender.Handler {
    private volatile long[] deadlines = new long[0];
    private volatile AtomicIntegerArray runs = new AtomicIntegerArray(0);
    private volatile AtomicLongArray lateMicros = new AtomicLongArray(0);
    final LongAdder ran = new LongAdder();
    final LongAdder distinct = new LongAdder();
    final LongAdder unexpected = new LongAdder();

    void expect(long[] deadlinesMillis) {
        deadlines = deadlinesMillis;
        lateMicros = new AtomicLongArray(deadlinesMillis.length);
        runs = new AtomicIntegerArray(deadlinesMillis.length);
    }

    int expected() {
        return deadlines.length;
    }

    @Override
    public void ran(String key, Instant deadline) {
        Instant now = DurableExperiments.CLOCK.instant();
        long nowMicros = TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + now.getNano() / 1_000;
        ran.increment();
        int i = key.startsWith("k") ? Integer.parseInt(key.substring(1)) : -1;
        if (i < 0 || i >= deadlines.length) {
            unexpected.increment();
            return;
        }
        if (runs.incrementAndGet(i) == 1) {
            lateMicros.set(i, nowMicros - deadlines[i] * 1_000);
            distinct.increment();
        }
    }

    long duplicates() {
        long duplicates = 0;
        for (int i = 0; i < runs.length(); i++) {
            duplicates += Math.max(0, runs.get(i) - 1);
        }
        return duplicates;
    }

    long missing() {
        long missing = 0;
        for (int i = 0; i < runs.length(); i++) {
            missing += runs.get(i) == 0 ? 1 : 0;
        }
        return missing;
    }

    /** The lateness of those that ran, sorted; fails if none ran. */
    long[] sortedLatenessMicros() {
        List<Long> ranOnes = new ArrayList<>();
        for (int i = 0; i < runs.length(); i++) {
            if (runs.get(i) > 0) {
                ranOnes.add(lateMicros.get(i));
            }
        }
        if (ranOnes.isEmpty()) {
            throw new IllegalStateException("none of the " + runs.length() + " timeouts ran");
        }
        return ranOnes.stream().mapToLong(Long::longValue).sorted().toArray();
    }
}
