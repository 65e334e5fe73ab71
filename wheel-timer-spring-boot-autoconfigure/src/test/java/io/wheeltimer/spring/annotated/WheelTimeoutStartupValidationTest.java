package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.assertStartupFailsNaming;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

    @Test
    void primitiveReturnTypeFailsStartup() {
        runner.withBean(ReturnsBoolean.class)
                .run(context -> assertStartupFailsNaming(
                        context, ReturnsBoolean.class.getName() + ".done(long)", "returns boolean"));
    }

    @Test
    void objectReturnTypeFailsStartup() {
        runner.withBean(ReturnsObject.class)
                .run(context -> assertStartupFailsNaming(
                        context, ReturnsObject.class.getName() + ".value()", "returns java.lang.Object"));
    }

    @Test
    void unparsablePlaceholderValueFailsStartupShowingTheResolvedValue() {
        runner.withBean(PlaceholderDelay.class)
                .withPropertyValues("my.delay=later")
                .run(context -> assertStartupFailsNaming(
                        context,
                        PlaceholderDelay.class.getName() + ".run()",
                        "'${my.delay}' (resolved to 'later')",
                        "is not a duration"));
    }

    @Test
    void negativeDelayFailsStartup() {
        runner.withBean(NegativeDelay.class)
                .run(context -> assertStartupFailsNaming(
                        context, NegativeDelay.class.getName() + ".run(String)", "'-5s'", "is negative"));
    }

    @Test
    void negativePlainNumberFailsStartup() {
        runner.withBean(NegativePlainNumber.class)
                .run(context -> assertStartupFailsNaming(
                        context, NegativePlainNumber.class.getName() + ".run()", "'-1'", "is negative", "seconds"));
    }

    @Test
    void emptyDelayFailsStartup() {
        runner.withBean(EmptyDelay.class)
                .run(context ->
                        assertStartupFailsNaming(context, EmptyDelay.class.getName() + ".run(String)", "is empty"));
    }

    @Test
    void placeholderResolvedToEmptyFailsStartup() {
        runner.withBean(PlaceholderDelay.class)
                .withPropertyValues("my.delay=")
                .run(context ->
                        assertStartupFailsNaming(context, PlaceholderDelay.class.getName() + ".run()", "is empty"));
    }

    @Test
    void unresolvablePlaceholderFailsStartupNamingTheMethod() {
        runner.withBean(PlaceholderDelay.class)
                .run(context ->
                        assertStartupFailsNaming(context, PlaceholderDelay.class.getName() + ".run()", "my.delay"));
    }

    @Test
    void delayTooLongForNanosecondsFailsStartupNamingTheMethod() {
        runner.withBean(HugeDelay.class)
                .run(context -> assertStartupFailsNaming(context, HugeDelay.class.getName() + ".run()", "300000d"));
    }

    @Test
    void unknownTimerBeanFailsStartupListingTheTimers() {
        runner.withBean(UnknownTimer.class)
                .run(context -> assertStartupFailsNaming(
                        context, UnknownTimer.class.getName() + ".run(String)", "timer 'nope'", "[wheelTimer]"));
    }

    @Test
    void timerNamingABeanThatIsNoTimerFailsStartup() {
        runner.withBean("notATimer", String.class, () -> "just a string")
                .withBean(NotATimer.class)
                .run(context -> assertStartupFailsNaming(
                        context,
                        NotATimer.class.getName() + ".run()",
                        "timer 'notATimer'",
                        "is not the name of an io.wheeltimer.Timer bean"));
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

    @Test
    void firstInvalidMethodOfABeanFailsStartupEvenIfOthersAreValid() {
        runner.withBean(OneBadAmongGood.class)
                .run(context -> assertStartupFailsNaming(
                        context, OneBadAmongGood.class.getName() + ".bad(String)", "'eventually'"));
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
