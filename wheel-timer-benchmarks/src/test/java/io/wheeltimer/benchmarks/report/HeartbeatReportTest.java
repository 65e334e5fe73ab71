package io.wheeltimer.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code TaskScheduler} targets as the report judges them from JMH results: at 1 calling thread
 * ahead of {@code ThreadPoolTaskScheduler}, at 2 (contended) at least 3 ×, and bytes per re-arm no
 * more than its.
 */
class HeartbeatReportTest {

    @TempDir
    Path dir;

    @Test
    void aheadAtOneThreadThreeTimesAtTwoAndNoMoreBytesAreMet() throws IOException {
        String targets = targetRows(results(1.97, 4.65, 136, 1.58, 0.75, 136, 1.56, 0.70, 136));

        assertThat(targets.lines())
                .containsExactly(
                        "| throughput, 1 calling thread: ahead of ThreadPoolTaskScheduler, 1 thread (> 1 ×) | 1.25 × | yes |",
                        "| throughput, 2 calling threads (contended): ≥ 3 × ThreadPoolTaskScheduler, 1 thread | 6.20 × | yes |",
                        "| throughput, 1 calling thread: ahead of " + cpuThreads() + " (> 1 ×) | 1.26 × | yes |",
                        "| throughput, 2 calling threads (contended): ≥ 3 × " + cpuThreads() + " | 6.64 × | yes |",
                        "| bytes per re-arm: no more than ThreadPoolTaskScheduler's (136 B) | 136 B (1.00 ×) | yes |");
    }

    @Test
    void levelAtOneThreadUnderThreeTimesAtTwoAndMoreBytesAreNot() throws IOException {
        String targets = targetRows(results(1.58, 2.2, 137, 1.58, 0.75, 136, 1.56, 0.70, 160));

        assertThat(targets.lines())
                .containsExactly(
                        "| throughput, 1 calling thread: ahead of ThreadPoolTaskScheduler, 1 thread (> 1 ×) | 1.00 × | **no** |",
                        "| throughput, 2 calling threads (contended): ≥ 3 × ThreadPoolTaskScheduler, 1 thread | 2.93 × | **no** |",
                        "| throughput, 1 calling thread: ahead of " + cpuThreads() + " (> 1 ×) | 1.01 × | yes |",
                        "| throughput, 2 calling threads (contended): ≥ 3 × " + cpuThreads() + " | 3.14 × | yes |",
                        "| bytes per re-arm: no more than ThreadPoolTaskScheduler's (136 B) | 137 B (1.01 ×) | **no** |");
    }

    private static String cpuThreads() {
        return "ThreadPoolTaskScheduler, " + Runtime.getRuntime().availableProcessors() + " threads (one per CPU)";
    }

    /** The target rows the report writes for {@code jmh}. */
    private String targetRows(Path jmh) throws IOException {
        Template section = Template.load().section(HeartbeatReport.START, HeartbeatReport.END);
        new HeartbeatReport(jmh).fill(section, Targets.load(), "the command");
        return section.fill()
                .lines()
                .filter(line -> line.startsWith("| throughput") || line.startsWith("| bytes"))
                .reduce((a, b) -> a + "\n" + b)
                .orElse("");
    }

    /**
     * A JMH result file: per scheduler (wheel, Spring with 1 thread, Spring with one per CPU) the
     * re-arms per µs at 1 and 2 calling threads and the bytes per re-arm.
     */
    private Path results(double... wheelSpringOneSpringCpu) throws IOException {
        String[] schedulers = {"WHEEL", "SPRING_ONE_THREAD", "SPRING_CPU_THREADS"};
        StringJoiner runs = new StringJoiner(",\n", "[\n", "\n]\n");
        for (int s = 0; s < schedulers.length; s++) {
            double one = wheelSpringOneSpringCpu[3 * s];
            double two = wheelSpringOneSpringCpu[3 * s + 1];
            double bytes = wheelSpringOneSpringCpu[3 * s + 2];
            runs.add(run("oneThread", schedulers[s], one, bytes));
            runs.add(run("twoThreads", schedulers[s], two, bytes));
        }
        Path file = dir.resolve("jmh-heartbeat.json");
        Files.writeString(file, runs.toString());
        return file;
    }

    private static String run(String method, String scheduler, double score, double bytes) {
        return String.format(Locale.ROOT, """
                {"benchmark": "io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark.%s", "measurementIterations": 5,
                 "params": {"scheduler": "%s"}, "primaryMetric": {"score": %s},
                 "secondaryMetrics": {"gc.alloc.rate.norm": {"score": %s}}}""", method, scheduler, score, bytes);
    }
}
