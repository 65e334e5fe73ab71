package io.wheeltimer.dashboard;

import io.wheeltimer.spring.autoconfigure.durable.LatenessBuckets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How late this instance's durable timeouts started over the last five minutes, per task: count,
 * max, p50 and p99, and a histogram whose buckets are the {@code wheel.timer.durable.lateness}
 * timer's ({@link LatenessBuckets}). Fed by the timer's {@code started} event (through
 * {@link LatenessListener}); read when a page asks.
 *
 * <p>The window is 30 slots of 10 seconds; a slot older than the window is cleared when its turn
 * comes again, so memory stays fixed: per task, 30 slots of at most {@value #SAMPLES_PER_SLOT}
 * samples each (the percentiles are read from those; count, max and buckets from every sample).
 * Thread safe: each task's window is guarded by its own monitor, held for an array write.
 */
final class LatenessWindow {

    /** The span the figures cover. */
    static final Duration SPAN = Duration.ofMinutes(5);

    static final int SAMPLES_PER_SLOT = 1000;

    private static final int SLOTS = 30;
    private static final long SLOT_MILLIS = SPAN.toMillis() / SLOTS;
    private static final long[] BOUNDS_MILLIS =
            LatenessBuckets.BOUNDS.stream().mapToLong(Duration::toMillis).toArray();

    /**
     * The figures of one task: lateness in milliseconds; {@code buckets[i]} counts the samples of at
     * most {@code BOUNDS[i]} (and above the one before), the last one those above every bound.
     */
    record Figures(long count, long p50Millis, long p99Millis, long maxMillis, long[] buckets) {

        static final Figures NONE = new Figures(0, 0, 0, 0, new long[BOUNDS_MILLIS.length + 1]);

        /** The bounds of the buckets, as the timer has them. */
        static List<Duration> bounds() {
            return LatenessBuckets.BOUNDS;
        }
    }

    private final Clock clock;
    private final Map<String, TaskWindow> byTask = new ConcurrentHashMap<>();

    LatenessWindow(Clock clock) {
        this.clock = clock;
    }

    /** Records that a timeout of {@code task} started {@code lateness} after its deadline (early counts as 0). */
    void record(String task, Duration lateness) {
        long millis = lateness.isNegative() ? 0 : lateness.toMillis();
        byTask.computeIfAbsent(task, t -> new TaskWindow()).record(clock.millis(), millis);
    }

    /** The figures of {@code task} over the last five minutes; {@link Figures#NONE} when none started. */
    Figures figures(String task) {
        TaskWindow window = byTask.get(task);
        return window == null ? Figures.NONE : window.figures(clock.millis());
    }

    /** The bucket a sample of {@code millis} falls in. */
    static int bucket(long millis) {
        int i = Arrays.binarySearch(BOUNDS_MILLIS, millis);
        return i >= 0 ? i : -i - 1;
    }

    private static final class TaskWindow {
        private final long[] slotStart = new long[SLOTS];
        private final long[] count = new long[SLOTS];
        private final long[] max = new long[SLOTS];
        private final long[][] buckets = new long[SLOTS][BOUNDS_MILLIS.length + 1];
        private final long[][] samples = new long[SLOTS][SAMPLES_PER_SLOT];

        TaskWindow() {
            Arrays.fill(slotStart, Long.MIN_VALUE);
        }

        synchronized void record(long nowMillis, long millis) {
            long start = Math.floorDiv(nowMillis, SLOT_MILLIS) * SLOT_MILLIS;
            int slot = (int) Math.floorMod(Math.floorDiv(nowMillis, SLOT_MILLIS), (long) SLOTS);
            if (slotStart[slot] != start) {
                slotStart[slot] = start;
                count[slot] = 0;
                max[slot] = 0;
                Arrays.fill(buckets[slot], 0);
            }
            if (count[slot] < SAMPLES_PER_SLOT) {
                samples[slot][(int) count[slot]] = millis;
            }
            count[slot]++;
            max[slot] = Math.max(max[slot], millis);
            buckets[slot][bucket(millis)]++;
        }

        synchronized Figures figures(long nowMillis) {
            long oldest = Math.floorDiv(nowMillis, SLOT_MILLIS) * SLOT_MILLIS - (SLOTS - 1) * SLOT_MILLIS;
            long total = 0;
            long maxMillis = 0;
            long[] sums = new long[BOUNDS_MILLIS.length + 1];
            long[] kept = new long[0];
            int keptCount = 0;
            for (int slot = 0; slot < SLOTS; slot++) {
                if (slotStart[slot] < oldest || slotStart[slot] > nowMillis) {
                    continue;
                }
                total += count[slot];
                maxMillis = Math.max(maxMillis, max[slot]);
                for (int b = 0; b < sums.length; b++) {
                    sums[b] += buckets[slot][b];
                }
                int n = (int) Math.min(count[slot], SAMPLES_PER_SLOT);
                kept = Arrays.copyOf(kept, keptCount + n);
                System.arraycopy(samples[slot], 0, kept, keptCount, n);
                keptCount += n;
            }
            if (total == 0) {
                return Figures.NONE;
            }
            Arrays.sort(kept);
            return new Figures(total, percentile(kept, 0.50), percentile(kept, 0.99), maxMillis, sums);
        }

        /** The nearest-rank percentile: the smallest sample with at least {@code p} of them at or below it. */
        private static long percentile(long[] sorted, double p) {
            int rank = (int) Math.ceil(p * sorted.length);
            return sorted[Math.max(0, rank - 1)];
        }
    }
}
