package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.assertStartupFailsNaming;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.AuditTimer;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Mistake;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * A mistake in a {@link WheelTimeLimit @WheelTimeLimit} method stops the application at startup,
 * with a message that names the method; Mono and Flux are allowed only with Reactor on the class path.
 * The report Boot prints for each kind of mistake is in {@link AnnotationFailureReportTest}; a
 * mistake checked there is not checked again here.
 */
class WheelTimeLimitStartupValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    PropertyPlaceholderAutoConfiguration.class,
                    WheelTimerAutoConfiguration.class,
                    WheelTimeLimitAutoConfiguration.class))
            .withBean(ManualTicker.class, ManualTicker::new);

    @Nested
    class ReturnTypes {

        @Test
        void aSynchronousReturnTypeFailsStartup() {
            new Mistake("a synchronous return type", ReturnsString.class, ".get()", "returns java.lang.String")
                    .assertFailsStartup(runner);
        }

        @Test
        void monoIsAcceptedWithReactorOnTheClassPath() {
            runner.withBean(ReturnsMono.class)
                    .run(context -> assertThat(context).hasNotFailed());
        }

        @Test
        void withoutReactorAMonoFailsStartup() {
            new Mistake(
                            "a Mono without Reactor",
                            ReturnsMono.class,
                            ".get()",
                            "returns reactor.core.publisher.Mono",
                            "(or Mono or Flux, with Reactor on the class path)")
                    .assertFailsStartup(runner.withClassLoader(new FilteredClassLoader("reactor.")));
        }

        /** At the post-processor: a filtering class loader cannot define the proxy class a context would need. */
        @Test
        void withoutReactorAFutureIsStillAccepted() throws Exception {
            WheelTimeLimitBeanPostProcessor processor = new WheelTimeLimitBeanPostProcessor();
            DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
            beanFactory.registerSingleton(
                    "wheelTimer", HashedWheelTimer.builder().build());
            processor.setBeanFactory(beanFactory);
            processor.setBeanClassLoader(new FilteredClassLoader("reactor."));

            TimeLimitedMethod method =
                    processor.checked(ReturnsCompletableFuture.class.getMethod("get"), ReturnsCompletableFuture.class);

            assertThat(method.result).isEqualTo(TimeLimitedMethod.Result.FUTURE);
            assertThatThrownBy(() -> processor.checked(ReturnsMono.class.getMethod("get"), ReturnsMono.class))
                    .hasMessageContaining("with Reactor on the class path");
        }
    }

    @Nested
    class Limits {

        @Test
        void anUnparsableLimitFailsStartupNamingTheMethodAndTheValue() {
            runner.withBean(UnparsableLimit.class)
                    .run(context -> assertStartupFailsNaming(
                            context,
                            "@WheelTimeLimit on " + UnparsableLimit.class.getName()
                                    + ".get(): limit 'soon' is not a duration"));
        }

        static Stream<Mistake> mistakes() {
            return Stream.of(
                    new Mistake("an empty limit", EmptyLimit.class, ".get()", "is empty"),
                    new Mistake(
                                    "a placeholder whose value does not parse, shown resolved",
                                    PlaceholderLimit.class,
                                    ".get()",
                                    "'${my.limit}' (resolved to 'later')",
                                    "is not a duration")
                            .given("my.limit=later"));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("mistakes")
        void aMistakeFailsStartupNamingTheMethod(Mistake mistake) {
            mistake.assertFailsStartup(runner);
        }
    }

    /**
     * The Spring Boot guide's second timer: built from the builder bean, not a default candidate. A limit that
     * names no timer goes to {@code wheelTimer}, as {@code @Autowired Timer} does; one that names
     * it, trimmed, goes to it.
     */
    @Nested
    class ASecondTimerThatIsNoDefaultCandidate {

        @Test
        void leavesLimitsThatNameNoTimerOnWheelTimer() {
            runner.withUserConfiguration(AuditTimer.class)
                    .withBean(OnAuditTimer.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);

                        context.getBean(OnAuditTimer.class).onDefault();
                        assertThat(wheelTimer.pendingTimeouts()).isOne();
                        assertThat(auditTimer.pendingTimeouts()).isZero();

                        context.getBean(OnAuditTimer.class).onAudit();
                        assertThat(wheelTimer.pendingTimeouts()).isOne();
                        assertThat(auditTimer.pendingTimeouts()).isOne();
                    });
        }
    }

    @Nested
    class WithWheelTimeout {

        @Test
        void aMethodWithBothAnnotationsFailsStartupSayingWhy() {
            new Mistake(
                            "both annotations",
                            BothAnnotations.class,
                            ".get()",
                            "also carries @WheelTimeout",
                            "Put @WheelTimeLimit on the method the deferred one calls instead")
                    .assertFailsStartup(runner);
        }
    }

    static class OnAuditTimer {
        @WheelTimeLimit("5s")
        public CompletableFuture<String> onDefault() {
            return new CompletableFuture<>();
        }

        @WheelTimeLimit(value = "5s", timer = " auditTimer ")
        public CompletableFuture<String> onAudit() {
            return new CompletableFuture<>();
        }
    }

    static class ReturnsCompletableFuture {
        @WheelTimeLimit("1s")
        public CompletableFuture<String> get() {
            return CompletableFuture.completedFuture("ok");
        }
    }

    static class ReturnsString {
        @WheelTimeLimit("1s")
        public String get() {
            return "";
        }
    }

    static class ReturnsMono {
        @WheelTimeLimit("1s")
        public Mono<String> get() {
            return Mono.just("");
        }
    }

    static class UnparsableLimit {
        @WheelTimeLimit("soon")
        public CompletableFuture<String> get() {
            return null;
        }
    }

    static class EmptyLimit {
        @WheelTimeLimit
        public CompletableFuture<String> get() {
            return null;
        }
    }

    static class PlaceholderLimit {
        @WheelTimeLimit("${my.limit}")
        public CompletableFuture<String> get() {
            return null;
        }
    }

    static class BothAnnotations {
        @WheelTimeout("1s")
        @WheelTimeLimit("1s")
        public CompletableFuture<String> get() {
            return null;
        }
    }
}
