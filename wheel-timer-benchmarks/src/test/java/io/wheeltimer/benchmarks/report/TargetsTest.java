package io.wheeltimer.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TargetsTest {

    private static final String HEADER = "# a comment\nid\tcomparison\tthreshold\ttext\n";

    @Test
    void aTargetIsMetAsItsComparisonAndThresholdSay() {
        Targets targets = Targets.parse(HEADER
                + "faster\t>=\t1.5\tthroughput: {op} {threshold} × Netty\n"
                + "smaller\t<=\t1/10\tbytes: {op} {threshold} of Netty's ({netty})\n"
                + "ahead\t>\t1\tthroughput: ahead of Spring ({op} {threshold} ×)\n"
                + "idle\t<\t0.1\tidle: {op} {threshold}\n"
                + "none\t==\t0\tearly: {threshold}\n");

        Targets.Target faster = targets.get("faster");
        assertThat(faster.met(1.5)).isTrue();
        assertThat(faster.met(1.49)).isFalse();
        assertThat(faster.met(Double.NaN)).isFalse();
        assertThat(faster.text()).isEqualTo("throughput: ≥ 1.5 × Netty");

        Targets.Target smaller = targets.get("smaller");
        assertThat(smaller.met(5.8, 58)).isTrue();
        assertThat(smaller.met(6, 58)).isFalse();
        assertThat(smaller.thresholdDecimal()).isEqualTo("0.1");
        assertThat(smaller.text("netty", "58.0")).isEqualTo("bytes: ≤ 1/10 of Netty's (58.0)");

        Targets.Target ahead = targets.get("ahead");
        assertThat(ahead.met(1.01)).isTrue();
        assertThat(ahead.met(1)).as("level is not ahead").isFalse();
        assertThat(ahead.text()).isEqualTo("throughput: ahead of Spring (> 1 ×)");

        assertThat(targets.get("idle").met(0.1)).isFalse();
        assertThat(targets.get("idle").met(0.09)).isTrue();
        assertThat(targets.get("none").met(0)).isTrue();
        assertThat(targets.get("none").met(1)).isFalse();
    }

    @Test
    void percentIsTheThresholdTimesAHundred() {
        Targets.Target within = Targets.parse(HEADER + "within\t<=\t0.05\twithin {percent} % of Netty's\n")
                .get("within");

        assertThat(within.text()).isEqualTo("within 5 % of Netty's");
        assertThat(within.met(100.0 / 96 - 1)).isTrue();
        assertThat(within.met(106.0 / 100 - 1)).isFalse();
    }

    @Test
    void aNameTheTextHasAndTheReportDoesNotFillIsAnErrorNamingIt() {
        Targets.Target target =
                Targets.parse(HEADER + "t\t>=\t1\tbetter than {netty}\n").get("t");

        assertThatThrownBy(target::text)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("target t")
                .hasMessageContaining("{netty}");
    }

    @Test
    void badLinesAreErrorsNamingTheLineAndWhatIsAllowed() {
        assertThatThrownBy(() -> Targets.parse(HEADER + "t\t=>\t1\ttext\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 3")
                .hasMessageContaining("comparison =>")
                .hasMessageContaining(">=, >, <=, < or ==");
        assertThatThrownBy(() -> Targets.parse(HEADER + "t\t>=\t1\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 3")
                .hasMessageContaining("3 tab-separated cells");
        assertThatThrownBy(() -> Targets.parse(HEADER + "t\t>=\t1\ta\nt\t<=\t2\tb\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("target t is there twice");
        Targets.Target notANumber =
                Targets.parse(HEADER + "t\t>=\tmany\ttext\n").get("t");
        assertThatThrownBy(() -> notANumber.met(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threshold many");
        assertThatThrownBy(() -> Targets.parse(HEADER).get("missing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no target missing");
    }

    @Test
    void theShippedTargetsParseWithTheirThresholds() {
        Targets targets = Targets.load();

        assertThat(targets.get("schedule-cancel").threshold()).isEqualTo(1.5);
        assertThat(targets.get("in-flight").threshold()).isEqualTo(1.3);
        assertThat(targets.get("time-limit-bytes").threshold()).isEqualTo(1.0 / 3);
        assertThat(targets.get("durable-p99").text()).isEqualTo("lateness p99 ≤ 50 ms");
        assertThat(targets.get("heartbeat-throughput-1").comparison()).isEqualTo(Targets.Comparison.ABOVE);
        assertThat(targets.get("heartbeat-throughput-1").threshold()).isEqualTo(1);
        assertThat(targets.get("heartbeat-throughput-2").comparison()).isEqualTo(Targets.Comparison.AT_LEAST);
        assertThat(targets.get("heartbeat-throughput-2").threshold()).isEqualTo(3);
        assertThat(targets.get("heartbeat-bytes").comparison()).isEqualTo(Targets.Comparison.AT_MOST);
        assertThat(targets.get("heartbeat-bytes").threshold()).isEqualTo(1);
    }
}
