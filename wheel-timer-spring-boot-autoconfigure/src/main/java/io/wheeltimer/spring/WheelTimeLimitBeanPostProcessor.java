package io.wheeltimer.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Applies {@link WheelTimeLimit @WheelTimeLimit}: proxies beans with annotated methods so that the
 * asynchronous result of a call gets a deadline on a timer. Every annotated method is checked when
 * its bean is created (return type, limit, timer bean, no {@code @WheelTimeout} as well), so a
 * mistake stops the application at startup rather than at the first call; the outcome is kept per
 * method.
 */
@SuppressWarnings("serial")
public class WheelTimeLimitBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements EmbeddedValueResolverAware {

    private final Map<MethodClassKey, TimeLimitedMethod> limitedMethods = new ConcurrentHashMap<>();
    private StringValueResolver valueResolver;
    private ListableBeanFactory beanFactory;
    /** Whether the application's class loader sees Reactor: Mono and Flux results are allowed then. */
    private boolean reactor =
            ClassUtils.isPresent("reactor.core.publisher.Mono", getClass().getClassLoader());

    /** Proxies {@code @WheelTimeLimit} methods, ahead of other advisors so the limit covers them too. */
    public WheelTimeLimitBeanPostProcessor() {
        setBeforeExistingAdvisors(true);
        this.advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, WheelTimeLimit.class, true),
                new WheelTimeLimitInterceptor(this::limitedMethod));
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        if (!(beanFactory instanceof ListableBeanFactory listable)) {
            throw new IllegalStateException("@WheelTimeLimit needs a ListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = listable;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        super.setBeanClassLoader(classLoader);
        this.reactor = ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader);
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.valueResolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<WheelTimeLimit>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, WheelTimeLimit.class))
                .keySet()
                .forEach(method -> limitedMethod(method, targetClass));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /** The checked, resolved form of an annotated method, made once per method and class. */
    TimeLimitedMethod limitedMethod(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        Method specific = AopUtils.getMostSpecificMethod(method, userClass);
        return limitedMethods.computeIfAbsent(
                new MethodClassKey(specific, userClass), key -> check(specific, userClass));
    }

    private TimeLimitedMethod check(Method method, Class<?> userClass) {
        String description = AnnotatedMethods.describe(method, userClass);
        WheelTimeLimit annotation = AnnotatedElementUtils.findMergedAnnotation(method, WheelTimeLimit.class);
        if (annotation == null) {
            throw new IllegalStateException("No @WheelTimeLimit on " + description);
        }
        if (AnnotatedElementUtils.hasAnnotation(method, WheelTimeout.class)) {
            throw new IllegalStateException("@WheelTimeLimit method " + description + " also carries @WheelTimeout;"
                    + " a deferred call returns before the method runs, so its limit would include the delay."
                    + " Put @WheelTimeLimit on the method the deferred one calls instead");
        }
        AnnotatedMethods.checkProxyable(method, description, "@WheelTimeLimit", "limit");
        TimeLimitedMethod.Result result = resultOf(method, description);
        String what = "@WheelTimeLimit on " + description;
        Duration limit =
                AnnotatedDurations.parse(what + ": limit", annotation.limit(), annotation.timeUnit(), valueResolver);
        String timerName = AnnotatedDurations.timerBean(
                what, annotation.timer().trim(), "@WheelTimeLimit(timer = \"...\")", beanFactory);
        return new TimeLimitedMethod(description, limit, result, annotation.cancelOnTimeout(), timerName, beanFactory);
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
        throw new IllegalStateException("@WheelTimeLimit method " + description + " returns " + type.getName()
                + "; it must return CompletableFuture or CompletionStage"
                + (reactor ? ", Mono or Flux" : " (or Mono or Flux, with Reactor on the class path)")
                + ", whose completion can be awaited without blocking; a plain Future cannot be");
    }
}
