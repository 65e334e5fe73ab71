package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.WORKER;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.timer;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.wheelTimeoutRunner;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Call;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Delays;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The forms a {@code @WheelTimeout} delay is written in: durations, ISO-8601, placeholders, plain
 * numbers in the time unit; each call runs exactly after its delay ({@link ManualTicker}, 100 ms
 * ticks).
 */
class WheelTimeoutDelayTest {

    private final ApplicationContextRunner runner = wheelTimeoutRunner();

    /** One way of writing a delay, the call that uses it and the delay it must give. */
    record DelayForm(
            String form,
            Class<?> bean,
            Consumer<AssertableApplicationContext> call,
            String method,
            Duration delay,
            String[] properties) {
        @Override
        public String toString() {
            return form;
        }
    }

    static Stream<DelayForm> delayForms() {
        return Stream.of(
                onDelays("simple form such as 30s", Delays::simple, "simple", Duration.ofSeconds(30)),
                onDelays("ISO-8601 form such as PT30S", Delays::iso, "iso", Duration.ofSeconds(30)),
                onPlaceholder("from a placeholder", "45s", Duration.ofSeconds(45)),
                onPlaceholder("from a placeholder in ISO-8601 form", "PT1M", Duration.ofMinutes(1)),
                onDelays(
                        "from the placeholder's default when the property is missing",
                        Delays::placeholderDefault,
                        "placeholderDefault",
                        Duration.ofSeconds(2)),
                onDelays(
                        "from the property, which overrides the placeholder's default",
                        Delays::placeholderDefault,
                        "placeholderDefault",
                        Duration.ofMillis(700),
                        "my.other-delay=700ms"),
                onDelays(
                        "plain number, in milliseconds by default",
                        Delays::plainMillis,
                        "plainMillis",
                        Duration.ofMillis(1500)),
                onDelays(
                        "plain number, read in the time unit",
                        Delays::plainSeconds,
                        "plainSeconds",
                        Duration.ofSeconds(1500)),
                onDelays(
                        "plain number from a placeholder, read in the time unit",
                        Delays::placeholderMinutes,
                        "placeholderMinutes",
                        Duration.ofMinutes(2),
                        "my.minutes=2"),
                onDelays("value, an alias for delay", Delays::valueAlias, "valueAlias", Duration.ofSeconds(5)));
    }

    private static DelayForm onDelays(
            String form, Consumer<Delays> call, String method, Duration delay, String... properties) {
        return new DelayForm(form, Delays.class, c -> call.accept(c.getBean(Delays.class)), method, delay, properties);
    }

    /** The delay of {@link PlaceholderDelay}, whose placeholder has no default, from its property. */
    private static DelayForm onPlaceholder(String form, String value, Duration delay) {
        return new DelayForm(
                form,
                PlaceholderDelay.class,
                c -> c.getBean(PlaceholderDelay.class).placeholder(),
                "placeholder",
                delay,
                new String[] {"my.delay=" + value});
    }

    /** The one pending call is due exactly its delay from the call (a multiple of the 100 ms tick), and runs then. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("delayForms")
    void callRunsExactlyAfterItsDelay(DelayForm form) {
        runner.withBean(form.bean()).withPropertyValues(form.properties()).run(context -> {
            form.call().accept(context);

            assertThat(timer(context).upcoming(10))
                    .singleElement()
                    .extracting(TimeoutInfo::remaining)
                    .isEqualTo(form.delay());
            ticker(context).advance(form.delay().minusMillis(1));
            assertThat(calls(context).all()).isEmpty();
            ticker(context).advance(Duration.ofMillis(1));
            assertThat(calls(context).methods()).containsExactly(form.method());
        });
    }

    @Test
    void zeroDelayRunsOnTheNextTick() {
        runner.withBean(Delays.class).run(context -> {
            context.getBean(Delays.class).zero();
            assertThat(calls(context).all()).isEmpty();

            ticker(context).advance(Duration.ofMillis(99));
            assertThat(calls(context).all()).isEmpty();
            ticker(context).advance(Duration.ofMillis(1));
            assertThat(calls(context).all()).singleElement().isEqualTo(new Call("zero", List.of(), WORKER));
        });
    }

    // --- user beans ---------------------------------------------------------------------------

    /** A placeholder without default: its property must be set. */
    static class PlaceholderDelay {
        final Calls calls;

        PlaceholderDelay(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "${my.delay}")
        public void placeholder() {
            calls.record("placeholder");
        }
    }
}
