package io.wheeltimer.spring.annotated;

import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Applies {@link WheelTimeLimit @WheelTimeLimit}: proxies beans with annotated methods so that the
 * asynchronous result of a call gets a deadline on a timer. Every annotated method is checked when
 * its bean is created (return type, limit, timer bean, no {@code @WheelTimeout} as well), so a
 * mistake stops the application at startup rather than at the first call; the outcome is kept per
 * method.
 */
@SuppressWarnings("serial")
public class WheelTimeLimitBeanPostProcessor extends AnnotatedMethodPostProcessor<WheelTimeLimit, TimeLimitedMethod> {

    private static final String ANNOTATION = "@WheelTimeLimit";

    /** Whether the application's class loader sees Reactor: Mono and Flux results are allowed then. */
    private boolean reactor =
            ClassUtils.isPresent("reactor.core.publisher.Mono", getClass().getClassLoader());

    /** Proxies {@code @WheelTimeLimit} methods, ahead of other advisors so the limit covers them too. */
    public WheelTimeLimitBeanPostProcessor() {
        super(WheelTimeLimit.class);
        advise(new WheelTimeLimitInterceptor(this::checked));
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        super.setBeanClassLoader(classLoader);
        this.reactor = ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader);
    }

    @Override
    TimeLimitedMethod check(Method method, String description, WheelTimeLimit annotation) {
        if (AnnotatedElementUtils.hasAnnotation(method, WheelTimeout.class)) {
            throw new InvalidWheelAnnotationException(
                    ANNOTATION,
                    description,
                    "the method also carries @WheelTimeout",
                    "a deferred call returns before the method runs, so its limit would include the delay",
                    "Put @WheelTimeLimit on the method the deferred one calls instead, or remove one of the two.");
        }
        AnnotatedMethods.checkProxyable(method, description, ANNOTATION, "limit");
        TimeLimitedMethod.Result result = resultOf(method, description);
        Duration limit = AnnotatedDurations.parse(
                ANNOTATION, description, "limit", annotation.limit(), annotation.timeUnit(), valueResolver);
        AnnotatedTimer timer = timer(description, annotation.timer());
        return new TimeLimitedMethod(description, limit, result, annotation.cancelOnTimeout(), timer, beanFactory);
    }

    private TimeLimitedMethod.Result resultOf(Method method, String description) {
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class) {
            return TimeLimitedMethod.Result.FUTURE;
        }
        if (type == CompletionStage.class) {
            return TimeLimitedMethod.Result.STAGE;
        }
        if (reactor && ReactorTimeLimits.isReactive(type)) {
            return type.getSimpleName().equals("Mono") ? TimeLimitedMethod.Result.MONO : TimeLimitedMethod.Result.FLUX;
        }
        String allowed = "CompletableFuture or CompletionStage"
                + (reactor ? ", Mono or Flux" : " (or Mono or Flux, with Reactor on the class path)");
        throw new InvalidWheelAnnotationException(
                ANNOTATION,
                description,
                "the method returns " + type.getName(),
                "it must return " + allowed + ", whose completion can be awaited without blocking;"
                        + " a plain Future cannot be",
                "Make " + description + " return " + allowed + ", or remove @WheelTimeLimit.");
    }
}
