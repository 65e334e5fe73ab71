package io.wheeltimer.spring;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Applies {@link WheelTimeout @WheelTimeout}: proxies beans with annotated methods so that a call
 * schedules the method on a timer instead of running it. Every annotated method is checked when
 * its bean is created (return type, delay, timer bean), so a mistake stops the application at
 * startup rather than at the first call; the outcome is kept per method.
 */
@SuppressWarnings("serial")
public class WheelTimeoutBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements EmbeddedValueResolverAware {

    /** Delays beyond this do not fit in a long of nanoseconds. */
    private static final Duration MAX_DELAY = Duration.ofNanos(Long.MAX_VALUE);

    private final Map<MethodClassKey, ScheduledMethod> scheduledMethods = new ConcurrentHashMap<>();
    private StringValueResolver valueResolver;
    private ListableBeanFactory beanFactory;

    public WheelTimeoutBeanPostProcessor() {
        setBeforeExistingAdvisors(true);
        this.advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, WheelTimeout.class, true),
                new WheelTimeoutInterceptor(this::scheduledMethod));
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        if (!(beanFactory instanceof ListableBeanFactory listable)) {
            throw new IllegalStateException("@WheelTimeout needs a ListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = listable;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.valueResolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<WheelTimeout>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, WheelTimeout.class))
                .keySet()
                .forEach(method -> scheduledMethod(method, targetClass));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /** The checked, resolved form of an annotated method, made once. */
    ScheduledMethod scheduledMethod(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        Method specific = AopUtils.getMostSpecificMethod(method, userClass);
        // Per class too: an inherited method is described as each bean's own class.
        return scheduledMethods.computeIfAbsent(new MethodClassKey(specific, userClass), key -> check(specific, userClass));
    }

    private ScheduledMethod check(Method method, Class<?> userClass) {
        String description = userClass.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
        WheelTimeout annotation = AnnotatedElementUtils.findMergedAnnotation(method, WheelTimeout.class);
        if (annotation == null) {
            throw new IllegalStateException("No @WheelTimeout on " + description);
        }
        checkInterceptable(method, description);
        ScheduledMethod.Result result = resultOf(method, description);
        Duration delay = delayOf(annotation, description);
        String timerName = annotation.timer();
        checkTimer(timerName, description);
        return new ScheduledMethod(description, delay.toNanos(), result, timerName, beanFactory);
    }

    /** A proxy cannot intercept these: the call would run at once, silently. */
    private static void checkInterceptable(Method method, String description) {
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers)) {
            throw new IllegalStateException("@WheelTimeout method " + description + " is "
                    + Modifier.toString(modifiers & (Modifier.STATIC | Modifier.PRIVATE | Modifier.FINAL))
                    + "; a proxy can only defer calls to non-static, non-private, non-final methods");
        }
    }

    private static ScheduledMethod.Result resultOf(Method method, String description) {
        Class<?> type = method.getReturnType();
        if (type == void.class) {
            return ScheduledMethod.Result.NONE;
        }
        if (type == Timeout.class) {
            return ScheduledMethod.Result.TIMEOUT;
        }
        if (type == CompletableFuture.class || type == CompletionStage.class || type == Future.class) {
            return ScheduledMethod.Result.FUTURE;
        }
        throw new IllegalStateException("@WheelTimeout method " + description + " returns " + type.getName()
                + "; it must return void, Timeout, CompletableFuture, CompletionStage or Future, because the"
                + " call returns before the method runs");
    }

    private Duration delayOf(WheelTimeout annotation, String description) {
        String text = annotation.delay();
        String resolved;
        try {
            resolved = valueResolver != null && !text.isEmpty() ? valueResolver.resolveStringValue(text) : text;
        } catch (IllegalArgumentException unresolvable) {
            throw new IllegalStateException("@WheelTimeout on " + description + ": delay '" + text
                    + "' cannot be resolved: " + unresolvable.getMessage(), unresolvable);
        }
        String problem;
        if (resolved == null || resolved.isBlank()) {
            problem = "is empty";
        } else {
            try {
                Duration delay = DurationStyle.detectAndParse(resolved.trim(), annotation.timeUnit().toChronoUnit());
                if (delay.isNegative()) {
                    problem = "is negative";
                } else if (delay.compareTo(MAX_DELAY) > 0) {
                    problem = "is too long (more than about 292 years)";
                } else {
                    return delay;
                }
            } catch (RuntimeException e) {
                problem = "is not a duration";
            }
        }
        String given = text.equals(resolved) ? "'" + text + "'" : "'" + text + "' (resolved to '" + resolved + "')";
        throw new IllegalStateException("@WheelTimeout on " + description + ": delay " + given + " " + problem
                + "; use a duration such as 30s, 500ms or PT1M, a ${...} placeholder, or a plain number of "
                + annotation.timeUnit().name().toLowerCase());
    }

    /** The named timer exists, or there is exactly one (or one primary) Timer, here or in a parent context. */
    private void checkTimer(String timerName, String description) {
        String[] timers = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Timer.class);
        if (!timerName.isEmpty()) {
            if (!Arrays.asList(timers).contains(timerName)) {
                throw new IllegalStateException("@WheelTimeout on " + description + ": timer '" + timerName
                        + "' is not the name of an io.wheeltimer.Timer bean; Timer beans: " + Arrays.toString(timers));
            }
        } else if (timers.length == 0) {
            throw new IllegalStateException("@WheelTimeout on " + description
                    + ": there is no io.wheeltimer.Timer bean to schedule it on");
        } else if (timers.length > 1 && primaryTimers(timers) != 1) {
            throw new IllegalStateException("@WheelTimeout on " + description + ": there are several Timer beans "
                    + Arrays.toString(timers) + " and none is primary; name one with @WheelTimeout(timer = \"...\")");
        }
    }

    private long primaryTimers(String[] names) {
        ConfigurableListableBeanFactory factory = beanFactory instanceof ConfigurableListableBeanFactory c ? c : null;
        return Arrays.stream(names)
                .filter(name -> factory != null && factory.containsBeanDefinition(name)
                        && factory.getBeanDefinition(name).isPrimary())
                .count();
    }
}
