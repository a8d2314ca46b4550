/// Something that shows images — a view, a terminal cell grid, a texture slot (the UI-agnostic
/// part of SDWebImage's `UIView+WebCache`). ``ImageBinding`` drives it.
///
/// Calls arrive on whatever thread the load finished on; a target bound to a UI thread hops there
/// itself.
public protocol ImageTarget: AnyObject, Sendable {
    /// Shows `image` (`nil` clears). `transition` is set when the binding decided this change
    /// should animate: a loaded image from the network or an asynchronous disk read, or any
    /// image with ``WebImageOptions/forceTransition`` — never the placeholder.
    func setImage(_ image: Image?, transition: ImageTransition?)
    /// Shown while a load runs (SD's `sd_imageIndicator`); `nil` for none.
    var indicator: (any ImageIndicator)? { get }
    /// The transition this target wants for loaded images (SD's `sd_imageTransition`); `nil` for none.
    var transition: ImageTransition? { get }
}

extension ImageTarget {
    public var indicator: (any ImageIndicator)? { nil }
    public var transition: ImageTransition? { nil }
}

/// A target that plays animations with a player: SDWebImage's `SDAnimatedImageView`.
/// ``ImageBinding`` loads animations for it to decode on demand (``OnDemandAnimationCoder``,
/// unless the load names a coder of its own), shows the poster frame through ``setImage(_:transition:)``,
/// then hands over a player. The target owns the player: it sets the loop count and handlers,
/// starts it, and stops it when its image changes.
public protocol AnimatedImageTarget: ImageTarget {
    /// Plays `player`'s animation (the poster frame is already shown).
    func play(_ player: AnimatedImagePlayer)
}
