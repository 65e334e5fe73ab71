package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The worker's profile, switched on and read through the seam the benchmarks reach by reflection
 * ({@link WorkerProfile#start}, {@link WorkerProfile#read}): renaming either breaks this test.
 */
class WorkerProfileTest {

    @Test
    void profileIsOffUntilStartedThenCountsRoundsPhasesAndCpuTime() throws Exception {
        ManualTicker ticker = new ManualTicker();
        AtomicInteger cpuReads = new AtomicInteger();
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(1))
                .build();
        try {
            timer.start();
            assertThat(WorkerProfile.read(timer)).as("off by default").isEmpty();

            AtomicLong cpu = new AtomicLong();
            WorkerProfile.start(timer, () -> {
                cpuReads.incrementAndGet();
                return cpu.addAndGet(1_000);
            });
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                timer.newTimeout(t -> ran.incrementAndGet(), Duration.ofMillis(5));
            }
            ticker.advance(Duration.ofMillis(10));
            assertThat(ran).hasValue(3);
        } finally {
            timer.stop();
        }

        Map<String, Long> profile = WorkerProfile.read(timer);
        assertThat(profile)
                .containsOnlyKeys(
                        "takeNanos",
                        "cascadeNanos",
                        "expireNanos",
                        "dispatchNanos",
                        "rounds",
                        "longestRoundNanos",
                        "costliestRoundCpuNanos");
        assertThat(profile.get("rounds")).isPositive();
        assertThat((long) cpuReads.get())
                .as("the CPU clock read at each round's start and end")
                .isEqualTo(2 * profile.get("rounds"));
        assertThat(profile.get("dispatchNanos")).as("ran three tasks").isPositive();
        assertThat(profile.get("longestRoundNanos")).isPositive();
        assertThat(profile.get("costliestRoundCpuNanos"))
                .as("one CPU-clock step per round")
                .isEqualTo(1_000);
        assertThat(profile.values()).allSatisfy(v -> assertThat(v).isNotNegative());
    }
}
