package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.assertStartupFailsNaming;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Mistake;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A mistake in a {@link WheelTimeout @WheelTimeout} method stops the application at startup, with a
 * message that names the method ({@code ClassName.method(ParamTypes)}), not at the first call.
 * The report Boot prints for each kind of mistake, with what is allowed and what to change, is in
 * {@link AnnotationFailureReportTest}; a mistake checked there is not checked again here.
 */
class WheelTimeoutStartupValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
            .withBean(ManualTicker.class, ManualTicker::new);

    @Test
    void validMethodsStartTheApplication() {
        runner.withBean(Valid.class).run(context -> assertThat(context).hasNotFailed());
    }

    /** Mistakes in the delay: each names the method, and the value as given or resolved. */
    static Stream<Mistake> delays() {
        return Stream.of(
                new Mistake(
                                "a placeholder whose value does not parse, shown resolved",
                                PlaceholderDelay.class,
                                ".run()",
                                "'${my.delay}' (resolved to 'later')",
                                "is not a duration")
                        .given("my.delay=later"),
                new Mistake("a placeholder resolved to empty", PlaceholderDelay.class, ".run()", "is empty")
                        .given("my.delay="),
                new Mistake("a placeholder that does not resolve", PlaceholderDelay.class, ".run()", "my.delay"),
                new Mistake("a negative delay", NegativeDelay.class, ".run(String)", "'-5s'", "is negative"),
                new Mistake(
                        "a negative plain number",
                        NegativePlainNumber.class,
                        ".run()",
                        "'-1'",
                        "is negative",
                        "seconds"),
                new Mistake("an empty delay", EmptyDelay.class, ".run(String)", "is empty"),
                new Mistake("a delay too long for nanoseconds", HugeDelay.class, ".run()", "300000d"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("delays")
    void aMistakeInTheDelayFailsStartupNamingTheMethod(Mistake mistake) {
        mistake.assertFailsStartup(runner);
    }

    /** Mistakes in the method's return type or its timer, and a bad method among good ones. */
    static Stream<Mistake> methods() {
        return Stream.of(
                new Mistake("a primitive return type", ReturnsBoolean.class, ".done(long)", "returns boolean"),
                new Mistake("an Object return type", ReturnsObject.class, ".value()", "returns java.lang.Object"),
                new Mistake(
                        "an unknown timer, the timers listed",
                        UnknownTimer.class,
                        ".run(String)",
                        "timer 'nope'",
                        "[wheelTimer]"),
                new Mistake(
                        "the first bad method of a bean, though others are good",
                        OneBadAmongGood.class,
                        ".bad(String)",
                        "'eventually'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("methods")
    void aMistakeInTheMethodFailsStartupNamingIt(Mistake mistake) {
        mistake.assertFailsStartup(runner);
    }

    @Test
    void timerNamingABeanThatIsNoTimerFailsStartup() {
        new Mistake(
                        "a timer that names no Timer bean",
                        NotATimer.class,
                        ".run()",
                        "timer 'notATimer'",
                        "is not the name of an io.wheeltimer.Timer bean")
                .assertFailsStartup(runner.withBean("notATimer", String.class, () -> "just a string"));
    }

    @Test
    void noTimerBeanAtAllFailsStartup() {
        // The post-processor without the auto-configuration, so that there is no Timer bean.
        new ApplicationContextRunner()
                .withUserConfiguration(PostProcessorOnly.class)
                .withBean(Valid.class)
                .run(context -> assertStartupFailsNaming(
                        context, Valid.class.getName() + ".run(String)", "no io.wheeltimer.Timer bean"));
    }

    static class Valid {
        @WheelTimeout("1s")
        public void run(String id) {}
    }

    static class ReturnsBoolean {
        @WheelTimeout("1s")
        public boolean done(long id) {
            return true;
        }
    }

    static class ReturnsObject {
        @WheelTimeout("1s")
        public Object value() {
            return null;
        }
    }

    static class PlaceholderDelay {
        @WheelTimeout("${my.delay}")
        public void run() {}
    }

    static class NegativeDelay {
        @WheelTimeout("-5s")
        public void run(String id) {}
    }

    static class NegativePlainNumber {
        @WheelTimeout(delay = "-1", timeUnit = TimeUnit.SECONDS)
        public void run() {}
    }

    static class EmptyDelay {
        @WheelTimeout
        public void run(String id) {}
    }

    static class HugeDelay {
        @WheelTimeout("300000d")
        public void run() {}
    }

    static class UnknownTimer {
        @WheelTimeout(delay = "1s", timer = "nope")
        public void run(String id) {}
    }

    static class NotATimer {
        @WheelTimeout(delay = "1s", timer = "notATimer")
        public void run() {}
    }

    static class OneBadAmongGood {
        @WheelTimeout("1s")
        public void good(String id) {}

        @WheelTimeout("eventually")
        public void bad(String id) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class PostProcessorOnly {
        @Bean
        static WheelTimeoutBeanPostProcessor wheelTimeoutBeanPostProcessor() {
            return new WheelTimeoutBeanPostProcessor();
        }
    }
}
