package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/**
 * A {@code @WheelTimeout} or {@code @WheelTimeLimit} that cannot apply stops the application with
 * Boot's failure-analysis report, as a bad property does, not with a stack trace: the description
 * names the method, the value and what is allowed; the action says what to change. One case per
 * kind of mistake, each in an application of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class AnnotationFailureReportTest {

    @SpringBootConfiguration
    @ImportAutoConfiguration({
        PropertyPlaceholderAutoConfiguration.class,
        WheelTimerAutoConfiguration.class,
        WheelTimeLimitAutoConfiguration.class
    })
    static class App {}

    static Stream<Arguments> mistakes() {
        return Stream.of(
                Arguments.of(
                        BadDelay.class,
                        "@WheelTimeout on method " + BadDelay.class.getName() + ".run(String)",
                        "delay 'soon' is not a duration",
                        "Use a duration such as 30s, 500ms or PT1M",
                        "Change the delay of @WheelTimeout on " + BadDelay.class.getName() + ".run(String) to"),
                Arguments.of(
                        NegativeLimit.class,
                        "@WheelTimeLimit on method " + NegativeLimit.class.getName() + ".get()",
                        "limit '-2s' is negative",
                        "Use a duration such as 30s",
                        "Change the limit of @WheelTimeLimit"),
                Arguments.of(
                        WrongReturnType.class,
                        "@WheelTimeout on method " + WrongReturnType.class.getName() + ".name()",
                        "the method returns java.lang.String",
                        "It must return void, Timeout, CompletableFuture, CompletionStage or Future",
                        "Make " + WrongReturnType.class.getName() + ".name() return void, Timeout"),
                Arguments.of(
                        PlainFutureLimited.class,
                        "@WheelTimeLimit on method " + PlainFutureLimited.class.getName() + ".get()",
                        "the method returns java.util.concurrent.Future",
                        "It must return CompletableFuture or CompletionStage, Mono or Flux",
                        "return CompletableFuture or CompletionStage"),
                Arguments.of(
                        UnknownExecutor.class,
                        "@WheelTimeout on method " + UnknownExecutor.class.getName() + ".run()",
                        "executor 'nope' is not the name of a java.util.concurrent.Executor bean",
                        "There is no Executor bean",
                        "Set @WheelTimeout(executor = \"...\") to the name of an Executor bean"),
                Arguments.of(
                        UnknownTimer.class,
                        "@WheelTimeLimit on method " + UnknownTimer.class.getName() + ".get()",
                        "timer 'nope' is not the name of an io.wheeltimer.Timer bean",
                        "Timer beans: [wheelTimer]",
                        "Set @WheelTimeLimit(timer = \"...\") to the name of one of the Timer beans [wheelTimer]"),
                Arguments.of(
                        FinalMethod.class,
                        "@WheelTimeout on method " + FinalMethod.class.getName() + ".run()",
                        "the method is final",
                        "A proxy can only defer calls to non-static, non-private, non-final methods",
                        "Make " + FinalMethod.class.getName() + ".run() a non-static, non-private, non-final method"),
                Arguments.of(
                        TwoTimers.class,
                        "@WheelTimeout on method " + OnEitherTimer.class.getName() + ".run()",
                        "there are several Timer beans [first, second]",
                        "the Timer that @Autowired Timer gets is used",
                        "Name the timer with @WheelTimeout(timer = \"...\"), mark one Timer bean @Primary, or declare the"
                                + " others with @Bean(defaultCandidate = false)."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void aMistakeStopsStartupWithAReportNamingTheMethodTheValueAndWhatIsAllowed(
            Class<?> bean, String method, String problem, String allowed, String action, CapturedOutput output) {
        SpringApplication application = new SpringApplication(App.class, bean);
        application.setWebApplicationType(WebApplicationType.NONE);
        Throwable failure = catchThrowable(() -> application.run("--spring.main.banner-mode=off"));
        assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
                .isInstanceOf(InvalidWheelAnnotationException.class);

        String printed = output.getOut() + output.getErr();
        assertThat(printed).contains("APPLICATION FAILED TO START");
        String report = printed.substring(printed.indexOf("APPLICATION FAILED TO START"));
        assertThat(report).contains("Description:", "Action:");
        String description = report.substring(report.indexOf("Description:"), report.indexOf("Action:"));
        String suggestion = report.substring(report.indexOf("Action:"));
        assertThat(description).contains(method, problem, allowed);
        assertThat(suggestion).contains(action);
        assertThat(report).as("a report, not a stack trace").doesNotContain("\tat ");
    }

    static class BadDelay {
        @WheelTimeout("soon")
        public void run(String id) {}
    }

    static class NegativeLimit {
        @WheelTimeLimit("-2s")
        public CompletableFuture<String> get() {
            return null;
        }
    }

    static class WrongReturnType {
        @WheelTimeout("1s")
        public String name() {
            return "";
        }
    }

    static class PlainFutureLimited {
        @WheelTimeLimit("1s")
        public Future<String> get() {
            return null;
        }
    }

    static class UnknownExecutor {
        @WheelTimeout(delay = "1s", executor = "nope")
        public void run() {}
    }

    static class UnknownTimer {
        @WheelTimeLimit(value = "1s", timer = "nope")
        public CompletableFuture<String> get() {
            return null;
        }
    }

    static class FinalMethod {
        @WheelTimeout("1s")
        public final void run() {}
    }

    static class OnEitherTimer {
        @WheelTimeout("1s")
        public void run() {}
    }

    /** Two timers, neither primary nor declared aside, and a method that names neither. */
    @Configuration(proxyBeanMethods = false)
    static class TwoTimers {
        @Bean
        HashedWheelTimer first() {
            return HashedWheelTimer.builder().name("first").build();
        }

        @Bean
        HashedWheelTimer second() {
            return HashedWheelTimer.builder().name("second").build();
        }

        @Bean
        OnEitherTimer onEitherTimer() {
            return new OnEitherTimer();
        }
    }
}
